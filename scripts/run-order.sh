#!/usr/bin/env bash
# Writes the times of relay-app's integration tests from the last full run's reports
# (tests/relay-app/target/failsafe-reports) to tests/relay-app/run-order/.surefire-relay-app-its,
# the order failsafe starts them in: longest classes first. Run it after a full run in which a
# class became much longer or shorter, or a long one was added; commit the file.
set -euo pipefail
cd "$(dirname "$0")/.."
reports=tests/relay-app/target/failsafe-reports
out=tests/relay-app/run-order/.surefire-relay-app-its
if ! ls "$reports"/TEST-*.xml >/dev/null 2>&1; then
  echo "run-order: no reports in $reports; run the integration tests first (scripts/test.sh)" >&2
  exit 2
fi
python3 - "$reports" > "$out.tmp" <<'PY'
import glob, sys
import xml.etree.ElementTree as ET
rows = []
for f in glob.glob(sys.argv[1] + "/TEST-*.xml"):
    for tc in ET.parse(f).getroot().iter("testcase"):
        rows.append((tc.get("classname"), tc.get("name"), int(float(tc.get("time")) * 1000)))
# failsafe's statistics format: successful runs, milliseconds, class, method
for c, m, ms in sorted(rows):
    print(f"1,{ms},{c},{m}")
PY
mv "$out.tmp" "$out"
echo "run-order: $(wc -l < "$out") tests' times written to $out"
