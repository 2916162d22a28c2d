# Sourced by bin/psflow, bin/mvn-jdk and .ci/run: finds a JDK >= 21 and exports JAVA_HOME.
# Order: $JAVA_HOME, then `java` on PATH, then /usr/lib/jvm/* (newest first).

psflow_java_major() { # $1 = path to a java binary; prints its feature version or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | sed 's/^1\.//' | head -n1
}

psflow_find_jdk() {
  local candidates=() c major
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    c="$(readlink -f "$(command -v java)")"; candidates+=("${c%/bin/java}")
  fi
  for c in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do candidates+=("${c%/}"); done
  for c in "${candidates[@]}"; do
    [ -x "$c/bin/java" ] && [ -x "$c/bin/javac" ] || continue
    major="$(psflow_java_major "$c/bin/java")"
    if [ -n "$major" ] && [ "$major" -ge 21 ] 2>/dev/null; then
      export JAVA_HOME="$c" PSFLOW_JAVA_MAJOR="$major"
      return 0
    fi
  done
  echo "psflow: no JDK 21 or newer found (looked at JAVA_HOME, java on PATH, /usr/lib/jvm/*)." >&2
  echo "psflow: install one (e.g. apt-get install openjdk-21-jdk-headless) or set JAVA_HOME to it." >&2
  return 1
}
