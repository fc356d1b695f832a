# Sourced by bin/outbox-relay and bin/build-cds-archive: the relay's class path and the name of
# its class data sharing archive, spelt the same way by both.
#
# A CDS archive records the class path it was built with and the size and modification time of
# each jar, and Java 17 uses it only where the class path is spelt exactly so (Java 20 and later
# also accept the jars moved together). So the class path goes through a descriptor of the
# distribution directory, /dev/fd/9/lib/<jar>, the same wherever the distribution is installed:
# an archive built in one place serves every copy unpacked with its modification times (tar, unzip
# and Docker's COPY keep them; cp without -p does not, and the jars then get an archive of their
# own). Where /dev/fd cannot reach directories (not Linux), the class path holds the distribution's
# own path and the archive serves that place only. The jars are listed in byte order: the JVM's
# own lib/* expansion follows the directory's order, which differs between copies.
#
# The archive's name holds a key: a checksum of the class path, the jars' names, sizes and times,
# and the size and time of the JVM's libjvm.so (an archive serves only the Java build that wrote
# it). Another Java or other jars make another key, so an archive that would not fit is never
# picked.

# cds_setup HOME JAVA [on|off]: sets cds_classpath, and cds_name to outbox-relay-<key>.jsa (empty
# with off, or when the key cannot be computed). Opens HOME on descriptor 9 (the class path's
# /dev/fd/9: fixed, because it is part of the class path), unless the caller left a descriptor 9
# open (a lock, say), which it keeps: the class path then holds HOME itself. Never fails.
cds_setup() {
  local home="$1" java="$2" mode="${3:-on}" prefix="$1" jars jar jvm libjvm stats
  if [[ "$mode" != off && ! -e /dev/fd/9 ]] && { exec 9<"$home"; } 2>/dev/null \
    && [[ -d /dev/fd/9/lib ]]; then
    prefix=/dev/fd/9
  fi
  jars="$(cd "$home/lib" && LC_ALL=C && printf '%s\n' *.jar)" || jars=""
  cds_classpath=""
  while IFS= read -r jar; do
    cds_classpath+="${cds_classpath:+:}$prefix/lib/$jar"
  done <<<"$jars"
  cds_name=""
  if [[ "$mode" == off ]]; then
    return 0
  fi
  jvm="$(readlink -f "$(command -v "$java")" 2>/dev/null)" || jvm=""
  libjvm="${jvm%/bin/java}/lib/server/libjvm.so"
  stats="$(cd "$home/lib" && xargs stat -c '%n %s %Y' <<<"$jars" 2>/dev/null)" || stats=""
  stats+=$'\n'"$(stat -L -c '%s %Y' "$libjvm" "$jvm" 2>/dev/null)" || true
  if [[ -n "$jvm" ]]; then
    cds_name="outbox-relay-$(printf '%s\n%s\n' "$cds_classpath" "$stats" | cksum | cut -d' ' -f1).jsa"
  fi
  return 0
}
