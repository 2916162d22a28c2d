# Sourced by bin/psflow, bin/mvn-jdk and .ci/run: finds a JDK >= 21 and exports JAVA_HOME.
# Order: $JAVA_HOME, then `java` on PATH, then /usr/lib/jvm/* (newest first).

# From the JDK's `release` file (JAVA_VERSION="25.0.3", or "1.8.0_392" for 8) when it has one, as every
# JDK since 9 does: asking the binary starts a JVM, 60-120 ms of every bin/psflow command on this
# project's 2-core machine, twice that when the java on the PATH is too old and is asked first.
psflow_java_major() { # $1 = path to a java binary; prints its feature version or nothing
  local release="${1%/bin/java}/release" line v=""
  if [ -f "$release" ]; then
    while IFS= read -r line; do
      case "$line" in JAVA_VERSION=*) v="${line#JAVA_VERSION=}"; v="${v//\"/}"; break ;; esac
    done <"$release"
  fi
  if [ -z "$v" ]; then
    v="$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n1)"
  fi
  v="${v#1.}"
  echo "${v%%[._+-]*}"
}

# Exports JAVA_HOME=$1 and PSFLOW_JAVA_MAJOR when $1 is a JDK (java and javac) of version 21 or newer.
psflow_use_jdk() {
  local major
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  major="$(psflow_java_major "$1/bin/java")"
  [ -n "$major" ] && [ "$major" -ge 21 ] 2>/dev/null || return 1
  export JAVA_HOME="$1" PSFLOW_JAVA_MAJOR="$major"
}

psflow_find_jdk() {
  local c
  # Each place is looked at only when the one before has no JDK >= 21: a JAVA_HOME that has one
  # costs no subprocess (the PATH's and /usr/lib/jvm's take readlink, ls and sort).
  [ -n "${JAVA_HOME:-}" ] && psflow_use_jdk "$JAVA_HOME" && return 0
  if command -v java >/dev/null 2>&1; then
    c="$(readlink -f "$(command -v java)")"
    psflow_use_jdk "${c%/bin/java}" && return 0
  fi
  for c in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do
    psflow_use_jdk "${c%/}" && return 0
  done
  echo "psflow: no JDK 21 or newer found (looked at JAVA_HOME, java on PATH, /usr/lib/jvm/*)." >&2
  echo "psflow: install one (e.g. apt-get install openjdk-21-jdk-headless) or set JAVA_HOME to it." >&2
  return 1
}
