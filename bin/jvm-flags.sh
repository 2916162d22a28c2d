# Sourced by bin/psflow and bin/bench: the JVM flags psflow's programs run with, kept in one place
# so that bin/bench launches psflow exactly as a user's bin/psflow does. Needs JAVA_HOME (from
# psflow_find_jdk). $PSFLOW_JAVA_OPTS, when set, comes first and is split on spaces.

psflow_jvm_flags() { # $1 = the project root; sets the array PSFLOW_JVM_FLAGS
  # shellcheck disable=SC2206 # PSFLOW_JAVA_OPTS is a space-separated list of flags on purpose
  PSFLOW_JVM_FLAGS=(${PSFLOW_JAVA_OPTS:-} -XX:+UseParallelGC -Xss2m
    --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED
    -Dpsflow.home="$1" -Dpsflow.java="$JAVA_HOME/bin/java")
}
