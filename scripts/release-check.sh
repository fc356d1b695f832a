#!/usr/bin/env bash
# Checks the artifacts a release would publish, without publishing anything:
#  1. deploys the parent, the BOM and every library module, with their sources and Javadoc jars
#     (-Prelease), to a file repository under target/release-check/staging;
#  2. checks that every deployed library has its three jars, that the BOM lists exactly the
#     deployed libraries at the project's version, and that the docs users read for the
#     dependency (compatibility.md, spring-boot.md) name that version;
#  3. builds examples/library-usage (an application outside the project: no parent, versions
#     from the BOM) with a local Maven repository that holds no io.outboxrelay artifact, so every
#     library comes from the staging repository, and runs it.
# Run after `mvn install` of the project (the libraries' test dependencies, such as test-support,
# resolve from ~/.m2); scripts/test.sh installs, then runs this last. Needs the network only for
# what ~/.m2 lacks (the first run fetches the source and Javadoc plugins).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=target/release-check
rm -rf "$work"
mkdir -p "$work"
staging="$root/$work/staging"
libraries=(outbox-event-router outbox-change-reader outbox-connect-transform consumer-idempotency
  outbox-writer outbox-spring-boot-starter)
version=$(sed -n '0,/<version>/s/.*<version>\(.*\)<\/version>.*/\1/p' pom.xml)

# A local repository like the user's (hard links: no copy) without any io.outboxrelay artifact:
# the example gets only what was deployed.
repo="$root/$work/m2"
mkdir -p "$repo"
if [ -d "$HOME/.m2/repository" ]; then
  cp -al "$HOME/.m2/repository/." "$repo/"
fi
rm -rf "$repo/io/outboxrelay"

modules=".,bom,$(IFS=,; echo "${libraries[*]}")"
echo "release-check: deploying $modules at $version to $staging"
mvn -B -ntp -q deploy -Prelease -pl "$modules" -Dmaven.test.skip=true -DskipITs \
  -Dspotless.check.skip=true -Dcheckstyle.skip=true \
  -DaltDeploymentRepository="staging::file://$staging" >"$work/deploy.log" 2>&1 || {
  tail -40 "$work/deploy.log"
  echo "release-check: the deploy failed (full log: $work/deploy.log)" >&2
  exit 1
}

problems=0
for lib in "${libraries[@]}"; do
  dir="$staging/io/outboxrelay/$lib/$version"
  jars=$(ls "$dir" 2>/dev/null | grep '\.jar$' || true)
  for kind in main sources javadoc; do
    if [ "$kind" = main ]; then
      found=$(echo "$jars" | grep -v -e '-sources\.jar$' -e '-javadoc\.jar$' || true)
    else
      found=$(echo "$jars" | grep -e "-$kind\.jar$" || true)
    fi
    if [ -z "$found" ]; then
      echo "release-check: $lib has no $kind jar in $dir" >&2
      problems=$((problems + 1))
    fi
  done
done
listed=$(sed -n '/<dependencyManagement>/,/<\/dependencyManagement>/p' bom/pom.xml |
  grep -o '<artifactId>[^<]*</artifactId>' | sed 's/<[^>]*>//g' | sort)
expected=$(printf '%s\n' "${libraries[@]}" | sort)
if [ "$listed" != "$expected" ]; then
  echo "release-check: the BOM lists [$(echo $listed)], the libraries are [$(echo $expected)]" >&2
  problems=$((problems + 1))
fi
bom_version=$(sed -n '0,/<version>/s/.*<version>\(.*\)<\/version>.*/\1/p' bom/pom.xml)
if [ "$bom_version" != "$version" ]; then
  echo "release-check: the BOM's version $bom_version is not the project's $version" >&2
  problems=$((problems + 1))
fi
# The docs tell users which version to depend on: it must be this one.
for doc in docs/compatibility.md docs/spring-boot.md; do
  if ! grep -q -F "$version" "$doc"; then
    echo "release-check: $doc does not name the project's version $version" >&2
    problems=$((problems + 1))
  fi
done
[ "$problems" -eq 0 ] || exit 1

echo "release-check: building examples/library-usage against the staging repository"
(cd examples/library-usage &&
  mvn -B -ntp -q -Dmaven.repo.local="$repo" -Doutbox.version="$version" \
    -Doutbox.repository="file://$staging" package dependency:build-classpath \
    -Dmdep.outputFile="$root/$work/usage.classpath" >"$root/$work/usage.log" 2>&1) || {
  tail -40 "$work/usage.log"
  echo "release-check: the example did not build against the staged artifacts" >&2
  exit 1
}
java -Xmx64m -cp "examples/library-usage/target/classes:$(cat "$work/usage.classpath")" \
  io.outboxrelay.examples.usage.LibraryUsage | tee "$work/usage.out"
if grep -v " from file:$root/$work/m2/io/outboxrelay/" "$work/usage.out" | grep -q .; then
  echo "release-check: a library was not resolved from the staging repository" >&2
  exit 1
fi
printed=$(grep -c " from file:$root/$work/m2/io/outboxrelay/" "$work/usage.out" || true)
if [ "$printed" -ne "${#libraries[@]}" ]; then
  echo "release-check: the example printed $printed libraries, expected ${#libraries[@]}" >&2
  exit 1
fi
echo "release-check: ${#libraries[@]} libraries, the BOM and the parent deployed with sources and" \
  "Javadoc; the example resolved them from the staging repository"
