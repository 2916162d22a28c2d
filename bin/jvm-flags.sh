# Sourced by bin/psflow and bin/bench: the JVM flags psflow's programs run with, kept in one place
# so that bin/bench launches psflow exactly as a user's bin/psflow does. Needs JAVA_HOME and
# PSFLOW_JAVA_MAJOR (from psflow_find_jdk). $PSFLOW_JAVA_OPTS, when set, is split on spaces and
# comes last, so that a user's -Xmn or -Xmx wins over these.
#
# -XX:NewSize=48m -XX:MaxNewSize=48m (-Xmn48m) -XX:SurvivorRatio=2: a step allocates tensors that
# die young; the collector's default young generation (sized to the machine, hundreds of MB here)
# made a 2000-step local run touch 2.0 GB of memory and spend seconds of system time faulting pages
# in. A small young generation keeps the process near its live data, but its survivor spaces must
# still hold the tensors of a step in flight at a collection: with -Xmn32m's 4 MB survivors, a
# 1600-unit layer's 5 MB tensors were promoted at every collection and the old generation grew to
# 2.6 GB (ps) and 6.4 GB (local) of garbage; 16 MB survivors and a 16 MB eden keep 100-unit runs as
# fast and as small, and made 1600-unit runs 2x faster in a tenth of the memory.
# A ps task's young generation starts at 48 MB and may grow to 256 MB (-XX:MaxNewSize=256m;
# ParallelGC's adaptive sizing grows it while collections cost more than 1% of the time): a ps
# allocates each step what the model weighs (a worker's gradients, Adam's new copy of a variable
# that a pull still shares), so at 1600 hidden units (10 MB a global step) 48 MB meant a young
# collection every second step, survivors too small for a step's 5 MB tensors, 251 collections in a
# 600-step job and an old generation grown to 600 MB of promoted garbage; it grows to ~230 MB there
# (30 collections, ~90 MB left after each), and to 65-80 MB at 100 units. Alternated against 48 MB
# (docs/benchmarks.md): 1600 units 0.93x the job's time, 0.87x the ps's CPU and its peak memory
# 502 MB against 799 MB; 400 units 0.97x; the README's job level, the ps's peak 219 MB against 169.
# -Xlog:gc+ergo=error: in a JVM whose heap is smaller than 256 MB (a small container) HotSpot caps
# the young generation to the heap itself, and says so in a warning line at start that is not the
# user's business. The other JVMs stay at 48 MB: a worker's young generation grew to ~240 MB at 100
# units for no speed, and psflow mnist's for none either.
# leakDetection.level=disabled: Netty's sampled buffer-leak tracking walks a stack for one buffer in
# 128, 1.3% of a ps's CPU; the tests keep it on.
# netty.jfr.enabled=false: Netty 4.2's pooled allocator registers its JFR event types when it makes
# its first chunk, and that loads the JDK's whole JFR metadata, recording or not: 86-115 ms of
# each JVM's start-up CPU (async-profiler, 1 ms samples, every JVM of a 20-step async job; none with
# the flag). A recording started by hand (-XX:StartFlightRecording) still gets the JVM's own events.
# CompileThresholdScaling 0.05 for gRPC (with its shaded Netty), psflow and protobuf: a cluster task
# with C2 leaves the transport at C1 (psflow-cli's task-jit-directives.json), but HotSpot still runs
# it as tier-3 code, which profiles for a C2 compilation the directives then refuse,
# until C2's thresholds (thousands of calls) send each method to its final C1 code. Thresholds 20
# times lower get the transport there within the first steps: a 2000-step async job over TLS
# trained in 7.71 s instead of 8.94 (medians of 3 alternations), sync 15.4 and 18.5 s instead of
# 17.6 and 19.8; local training unchanged. The same thresholds for all of psflow's code (first its
# distributed runtime only) get its executor, kernels and training loop compiled within the first
# steps too, in every JVM: psflow mnist (2000 steps) launch to exit 2.55 s against 2.80 (8 of 8
# alternated pairs shorter), the README's job 10.23 s against 10.54 (7 of 10); the JDK's own
# java.util.concurrent, java.nio and java.lang.invoke as well gained nothing more.
# CompileCommand=quiet keeps HotSpot from printing the commands at start.
# MaxTenuringThreshold=1: what a task builds as it starts (its graph, session, the dataset's labels,
# its connections; 8-12 MB in a worker) outlives the first young collections, and at the default
# threshold (up to 15; ParallelGC began at 7) the first six or seven copied it from survivor space to
# survivor space before promoting it: 7-15 ms a collection while training began. At 1 an object is
# promoted at the second collection it is alive at. A step's tensors die within the step, ~100 ms
# apart from one collection to the next, so they still die young: over a 6000-step async job the
# ps's old generation grew 12.0 to 12.8 MB and a worker's 68.0 to 68.9 MB before its final
# evaluation. The README's job, 6 alternated pairs, collector threads' CPU over all JVMs (/proc):
# 0.19 s against 0.35; at 1600 hidden units (600 steps, one run each) pauses 908/438/457 ms against
# 1070/520/500 (ps, workers), no full collection either way.
# SweeperThreshold=40: HotSpot asks the collector to unload code once the JIT has added this much of
# the code cache since the last time (15% by default). A JVM at C1 only has a 48 MB code cache, so
# its first 7 MB of compiled code, early in training, cost every task a full collection (ParallelGC;
# "Pause Full (CodeCache GC Threshold)", 38-39 ms of a worker's, -Xlog:gc); a C1 task's code stays
# under 9 MB (-XX:+PrintCodeCache at the end of the README's job), so at 40% it never comes.
# -XX:AOTCache: an ahead-of-time cache bin/aot-cache records (bin/build runs it), when there is one,
# it is newer than the jars it was recorded from, and the JDK is 25 or newer (an older JVM would
# refuse the flag); PSFLOW_AOT_CACHE=0 leaves it out. The JVM checks the cache against its jars
# itself, but a mismatch (a jar rebuilt by ./mvnw package since) costs four "[error][aot]" lines
# on every JVM's output; a jar newer than the cache is the common case of it, and is caught here.
# There are two caches, one per kind of JVM below, because a cache is refused (with "[error][aot]"
# lines) by a JVM whose modules differ from the recording's: psflow.aot for the JVMs at C1 only,
# recorded from the README's job, and psflow-c2.aot for the others, recorded from psflow mnist. A
# third, psflow-launcher.aot, is local-cluster's launcher's own from the same recording: a task's
# cache lacks the classes that make certificates, start processes and relay their lines.

# --sun-misc-unsafe-memory-access=allow (JDK 23-25, the JDKs that take it): Netty 4.2 leaves
# sun.misc.Unsafe alone on Java 25 unless the JVM allows its memory access ("io.netty.noUnsafe=true
# by default on Java 25+"), and then frees direct buffers through a Foreign Function API downcall
# (CleanerJava24Linker) whose linking spins method handles in the interpreter at every task's start,
# and reaches its buffers through ByteBuffers. Allowed, it takes Unsafe's cleaner and buffers, and
# prefers direct buffers, whose arenas GrpcTransport keeps to one per two cores (their 16 MiB chunks
# are native memory). The README's job, alternated (docs/benchmarks.md): 6.12 s / 11.86 s CPU against
# 6.56 / 12.71 without Unsafe (9 of 10 pairs shorter), peak memory the same; psflow mnist level. An
# earlier JDK rejects the option, a later one may.

# A ps task (--job_name=ps among the program's arguments) runs at C1 only (-XX:TieredStopAtLevel=1),
# and so without the Vector API's kernels (VectorSupport): it serves pulls and applies updates, its
# optimizer's update in psflow's C kernel where the build compiled one (NativeKernels; else in plain
# Java), and its hot code is the transport, which tasks keep at C1 anyway (task-jit-directives.json).
# Without C2 every method is compiled once, straight to C1's optimized tier with no profiling tier
# first, nothing compiles Adam beside the workers, and there is no kernel warm-up. Measured against
# the same build with C2 (docs/benchmarks.md): bin/bench-embedding (4 ps tasks) 1.45x the steps/sec;
# the plaintext async MNIST job launch to exit 0.90x, its ps's CPU 0.78x; over TLS the training time
# the same (10 pairs), the ps's CPU 0.9x and its peak memory 173 MB against 198 MB.
#
# A worker task of the replica programs (mnist-replica, in-graph-replica) runs at C1 only as well, on
# Linux x86-64, where psflow ships OpenBLAS's natives: its matrix products go to OpenBLAS instead of
# psflow's Vector API kernels, which are fast only once C2 has compiled them. Each worker spent about
# half its CPU in the JIT (C2 for the kernels, and C1 twice over, profiled code then final, for
# everything else); at C1 only it compiles everything once. Measured against the same build with C2
# (docs/benchmarks.md): the README's job (local-cluster, 2000 steps, TLS), 5 alternated pairs, wall
# 0.81x (0.72-0.84), CPU 0.79x (0.69-0.82), peak memory +15 MB.
#
# psflow mnist (local training, one process) runs at C1 only on the same platforms, for the same
# reason: its products go to OpenBLAS and its ReLUs and Adam to psflow's C kernels, so C2 had little
# left to compile that mattered, and compiled for ~3 s of CPU on the second core of a ~2.5 s run. Measured
# on a 2-core AMD EPYC (Zen 3, AVX2), 2000 steps, alternated (docs/benchmarks.md): 8 pairs, wall
# 2.56 s against 3.65, CPU 2.99 s against 6.96 (8 of 8), steps/sec 1059 against 970 (7 of 8 higher);
# 6 more pairs, steps/sec level (865 against 850).
#
# PSFLOW_JIT=c1 or c2 overrides the choice above for any program (not for local-cluster's launcher,
# whose tasks choose their own): c2 gives a JVM C2 and the Vector API's kernels back, as a later
# -XX:TieredStopAtLevel=4 in PSFLOW_JAVA_OPTS would without the module; c1 puts another program's
# JVM at C1 only. bin/aot-cache records psflow-c2.aot from PSFLOW_JIT=c2 psflow mnist.
#
# local-cluster's launcher runs at C1 only too: it makes the run's certificates, starts the tasks and
# relays their lines, and C2 compiled it for ~1 s of CPU beside them. Its tasks' JVMs start with the
# launcher's own flags less those it names in -Dpsflow.launcher_jvm_flags (LocalClusterCommand), so a
# worker keeps C2 unless it is a replica program's (above). Measured (docs/benchmarks.md): the
# launcher's own CPU 1.97-2.28 s against 3.62-4.11 s in the 2000-step main job (3 pairs), its
# tasks started 0.2-0.35 s sooner.

# The JVMs at C1 only (the launcher, a ps, a replica worker) start without the Vector API's module
# (--add-modules jdk.incubator.vector): they never run the vectorized kernels (VectorSupport takes the
# plain-Java ones without C2), and without an incubator module JDK 25's cache also holds their classes
# linked ahead of time, not only loaded. With that linked cache, replaying the recording run's method
# profiles (-XX:-AOTReplayTraining turns it off; a diagnostic flag, passed on JDK 25, where it was
# measured) made their training slower. Measured (docs/benchmarks.md, "The C1 JVMs without the Vector
# API's module"): the README's job's first step 0.4 s sooner (2.67 s against 3.06, 8 of 8 alternated
# pairs), launch to exit 10.92 s against 11.11; with the replay back on, 12.13 s against 10.29.
# The other JVMs keep the module and get the C2 cache. local-cluster's launcher names its own role flags
# and passes both sets to its tasks (LocalClusterCommand): -Dpsflow.launcher_jvm_flags lists its own
# (its tasks leave them out), -Dpsflow.c1_task_jvm_flags the C1 tasks' and -Dpsflow.c2_task_jvm_flags
# the C2 tasks'; each list is one flag per line, as a cache's path may hold spaces.

psflow_jvm_flags() { # $1 = the project root, then the program's arguments; sets the array PSFLOW_JVM_FLAGS
  local root="$1" role=() c1=(-XX:TieredStopAtLevel=1) c2=(--add-modules jdk.incubator.vector) prev="" a job="" kind=c2
  local target="$1/psflow-cli/target" launcher=(-XX:TieredStopAtLevel=1)
  local young=(-XX:MaxNewSize=48m) ps_young=(-XX:MaxNewSize=256m -Xlog:gc+ergo=error)
  shift
  for a in "$@"; do
    case "$a" in --job_name=*) job="${a#--job_name=}" ;; esac
    if [ "$prev" = "--job_name" ]; then
      job="$a"
    fi
    prev="$a"
  done
  if [ "${1:-}" = local-cluster ]; then
    kind=launcher # both sets: its own, and its C2 tasks'
  elif [ "$job" = ps ] || { [ "$job" = worker ] && psflow_native_gemm_worker "${1:-}"; } \
      || { [ "${1:-}" = mnist ] && psflow_native_gemm_platform; }; then
    kind=c1
  fi
  case "${PSFLOW_JIT:-}" in
    c1 | c2) [ "$kind" = launcher ] || kind="$PSFLOW_JIT" ;;
    "") ;;
    *) echo "psflow: PSFLOW_JIT=$PSFLOW_JIT is not a JVM kind; use c1 (C1 only, products on OpenBLAS) or c2 (C2 and the Vector API's kernels), or leave it unset" >&2
      return 1 ;;
  esac
  if [ "$kind" != c2 ] && psflow_aot_cache_usable "$root" "$target/psflow.aot"; then
    c1+=("-XX:AOTCache=$target/psflow.aot")
    if [ "${PSFLOW_JAVA_MAJOR:-0}" = 25 ]; then
      c1+=(-XX:+UnlockDiagnosticVMOptions -XX:-AOTReplayTraining)
    fi
  fi
  if [ "$kind" = launcher ] && psflow_aot_cache_usable "$root" "$target/psflow-launcher.aot"; then
    launcher+=("-XX:AOTCache=$target/psflow-launcher.aot")
    if [ "${PSFLOW_JAVA_MAJOR:-0}" = 25 ]; then
      launcher+=(-XX:+UnlockDiagnosticVMOptions -XX:-AOTReplayTraining)
    fi
  fi
  if [ "$kind" != c1 ] && psflow_aot_cache_usable "$root" "$target/psflow-c2.aot"; then
    c2+=("-XX:AOTCache=$target/psflow-c2.aot")
  fi
  local task_young=("${young[@]}")
  if [ "$job" = ps ]; then
    task_young=("${ps_young[@]}")
  fi
  case "$kind" in
    launcher) role=("${launcher[@]}" "${young[@]}" "-Dpsflow.launcher_jvm_flags=$(printf '%s\n' "${launcher[@]}" "${young[@]}")"
      "-Dpsflow.c1_task_jvm_flags=$(printf '%s\n' "${c1[@]}" "${young[@]}")"
      "-Dpsflow.ps_task_jvm_flags=$(printf '%s\n' "${c1[@]}" "${ps_young[@]}")"
      "-Dpsflow.c2_task_jvm_flags=$(printf '%s\n' "${c2[@]}" "${young[@]}")") ;;
    c1) role=("${c1[@]}" "${task_young[@]}") ;;
    *) role=("${c2[@]}" "${task_young[@]}") ;;
  esac
  local unsafe=()
  case "${PSFLOW_JAVA_MAJOR:-0}" in 23 | 24 | 25) unsafe=(--sun-misc-unsafe-memory-access=allow) ;; esac
  # shellcheck disable=SC2206 # PSFLOW_JAVA_OPTS is a space-separated list of flags on purpose
  PSFLOW_JVM_FLAGS=("${role[@]}" ${unsafe[@]+"${unsafe[@]}"} -XX:+UseParallelGC -XX:NewSize=48m -XX:SurvivorRatio=2 -Xss2m -XX:SweeperThreshold=40
    -XX:MaxTenuringThreshold=1
    -Dio.grpc.netty.shaded.io.netty.leakDetection.level=disabled -Dio.grpc.netty.shaded.io.netty.jfr.enabled=false
    -XX:CompileCommand=quiet
    '-XX:CompileCommand=CompileThresholdScaling,io/grpc/*.*,0.05'
    '-XX:CompileCommand=CompileThresholdScaling,dev/psflow/*.*,0.05'
    '-XX:CompileCommand=CompileThresholdScaling,com/google/protobuf/*.*,0.05'
    --enable-native-access=ALL-UNNAMED
    -Dpsflow.home="$root" -Dpsflow.java="$JAVA_HOME/bin/java" ${PSFLOW_JAVA_OPTS:-})
}

# Whether the ahead-of-time cache $2 may be passed (see -XX:AOTCache above): it is there, newer than
# psflow's jars under project root $1, the JDK is 25 or newer and PSFLOW_AOT_CACHE is not 0.
psflow_aot_cache_usable() {
  local jar
  [ "${PSFLOW_AOT_CACHE:-1}" != 0 ] && [ -f "$2" ] && [ "${PSFLOW_JAVA_MAJOR:-0}" -ge 25 ] 2>/dev/null \
    && [ ! "$1/psflow-cli/target/psflow.jar" -nt "$2" ] || return 1
  # bash's own -nt, not find: a subprocess for each of a launcher's three caches cost ~5 ms of its start
  for jar in "$1"/psflow-cli/target/lib/*.jar; do
    [ ! "$jar" -nt "$2" ] || return 1
  done
}

# Whether a worker of program $1 runs at C1 only, its products on OpenBLAS (psflow-core's NativeBlas):
# the replica programs, whose hot kernels are matrix products, on the platform bytedeco's natives
# (in psflow-cli/target/lib) are for. LocalClusterCommand.nativeGemmWorker decides the same for the
# workers local-cluster starts.
psflow_native_gemm_worker() {
  case "$1" in mnist-replica | in-graph-replica) ;; *) return 1 ;; esac
  psflow_native_gemm_platform
}

# Whether this machine is one bytedeco's OpenBLAS natives are for (Linux x86-64).
psflow_native_gemm_platform() {
  [ "$(uname -s)" = Linux ] && [ "$(uname -m)" = x86_64 ]
}
