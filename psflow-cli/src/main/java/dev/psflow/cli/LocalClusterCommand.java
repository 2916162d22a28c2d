package dev.psflow.cli;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.distributed.certs.ClusterCertificates;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code psflow local-cluster}: runs one program as a whole cluster of processes on this machine,
 * one per ps and worker task, on free ports of 127.0.0.1, and prints their output line by line
 * with the task in front. Each task is this same psflow (same JVM, same JVM flags) running
 * {@code <program> --job_name=.. --task_index=.. --ps_hosts=.. --worker_hosts=.. --tls_dir=.. <program flags>}:
 * mutual TLS with certificates made for the run (deleted at its end), or those of {@code --tls_dir};
 * plaintext only with {@code --insecure}. A program that serves metrics gets {@code --metrics_port}
 * too, a free port per task, and local-cluster prints where each task's {@code /metrics} is.
 */
@Command(name = "local-cluster", mixinStandardHelpOptions = true, modelTransformer = LocalClusterCommand.StopAtProgram.class,
    description = {
        "Run a program as a cluster of ps and worker processes on this machine (127.0.0.1, free ports).",
        "Each task runs: PROGRAM --job_name=ps|worker --task_index=I --ps_hosts=.. --worker_hosts=.. --tls_dir=.. FLAGS,",
        "with mutual TLS from throw-away certificates (or --tls_dir's), or --insecure instead of --tls_dir.",
        "Ends when every worker has exited (the ps tasks are then stopped); exit code 0 if all exited 0.",
        "When the program trains on without some workers (mnist-replica: async, or --sync_replicas with "
            + "--replicas_to_aggregate below the workers), a non-chief worker lost for good is reported and the "
            + "job goes on; it then ends when the chief (worker0) ends, with the chief's exit code."},
    footer = {"", "Example: psflow local-cluster --ps=1 --workers=2 mnist-replica --train_steps=2000"})
public final class LocalClusterCommand implements Callable<Integer> {
  /**
   * The system property listing, one per line, the JVM flags bin/jvm-flags.sh gave the launcher for its
   * role (C1 only, its own cache): its tasks leave them out.
   */
  static final String LAUNCHER_JVM_FLAGS = "psflow.launcher_jvm_flags";
  /** The system property listing, one per line, the JVM flags bin/jvm-flags.sh gives a JVM at C1 only. */
  static final String C1_TASK_JVM_FLAGS = "psflow.c1_task_jvm_flags";
  /**
   * The system property listing, one per line, the JVM flags bin/jvm-flags.sh gives a ps task: a C1
   * JVM's, with a young generation that may grow with the model.
   */
  static final String PS_TASK_JVM_FLAGS = "psflow.ps_task_jvm_flags";
  /** The system property listing, one per line, the JVM flags bin/jvm-flags.sh gives a JVM with C2. */
  static final String C2_TASK_JVM_FLAGS = "psflow.c2_task_jvm_flags";
  /** The flags local-cluster gives each task; the user may not give them too. */
  static final List<String> CLUSTER_FLAGS = List.of("--job_name", "--task_index", "--ps_hosts", "--worker_hosts",
      SecurityFlags.TLS_DIR, SecurityFlags.INSECURE, MetricsFlags.METRICS_PORT);
  private static final Pattern KILL = Pattern.compile("(ps|worker)(\\d+)@(?:(\\d+(?:\\.\\d*)?)|after:(.+))");

  @CommandLine.Spec CommandSpec spec;

  @Option(names = "--ps", defaultValue = "1", description = "Number of ps tasks (default: ${DEFAULT-VALUE}).")
  int ps;

  @Option(names = "--workers", defaultValue = "2", description = "Number of worker tasks (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--restart-on-failure", description = "Start a task's process again, with the same flags, when it "
      + "exits with a non-zero code or a signal (at most " + LocalCluster.MAX_CRASH_RESTARTS
      + " times per task, not counting restarts after --kill).")
  boolean restartOnFailure;

  @Option(names = "--kill", paramLabel = "TASK@SECONDS|TASK@after:REGEX", description = "Kill TASK's process (SIGKILL) "
      + "SECONDS after the start, e.g. worker1@5 or ps0@2.5, or once, when a line of any task's output (without its "
      + "[task] prefix) first contains a match of REGEX, e.g. 'ps0@after:global step: 1[0-9]{3}\\)' (repeatable).")
  List<String> kills = new ArrayList<>();

  @Option(names = SecurityFlags.TLS_DIR, paramLabel = "DIR", description = "The cluster's certificates, for every "
      + "task (psflow certs makes them for the cluster's addresses; local-cluster picks free ports, so this suits "
      + "certificates whose tasks all run on localhost). Default: throw-away certificates made for this run.")
  Path tlsDir;

  @Option(names = SecurityFlags.INSECURE, description = "Run every task in plaintext, without TLS (each task warns).")
  boolean insecure;

  @Parameters(index = "0", paramLabel = "PROGRAM", description = "The psflow program each task runs, e.g. mnist-replica.")
  String program;

  @Parameters(index = "1..*", paramLabel = "FLAGS", description = "The program's own flags, passed to every task.")
  List<String> programFlags = new ArrayList<>();

  /** Everything after PROGRAM is the program's, even what looks like local-cluster's flags. */
  static final class StopAtProgram implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec spec) {
      spec.parser().stopAtPositional(true);
      return spec;
    }
  }

  @Override
  public Integer call() throws InterruptedException {
    checkFlags();
    List<LocalCluster.Kill> kills = parseKills();
    boolean metrics = hasMetrics();
    List<Integer> ports = FreePorts.pick((ps + workers) * (metrics ? 2 : 1));
    String psHosts = hosts(ports.subList(0, ps));
    String workerHosts = hosts(ports.subList(ps, ps + workers));
    LinePrefixer out = new LinePrefixer(spec.commandLine().getOut(), spec.commandLine().getErr());
    List<String> java = withRoleFlags(javaCommand(),
        List.of(gcThreadsFlag(Runtime.getRuntime().availableProcessors(), ps + workers)));
    List<String> c1Java = withRoleFlags(java, c1Flags(System.getProperty(C1_TASK_JVM_FLAGS, "")));
    List<String> psJava = withRoleFlags(java,
        psFlags(System.getProperty(PS_TASK_JVM_FLAGS, ""), System.getProperty(C1_TASK_JVM_FLAGS, "")));
    List<String> workerJava = nativeGemmWorker(program, System.getProperty("os.name"), System.getProperty("os.arch"))
        ? c1Java : withRoleFlags(java, flagList(System.getProperty(C2_TASK_JVM_FLAGS, "")));
    Path throwAway = null;
    String security;
    if (insecure) {
      security = SecurityFlags.INSECURE;
    } else if (tlsDir != null) {
      security = SecurityFlags.TLS_DIR + "=" + tlsDir.toAbsolutePath();
    } else {
      throwAway = throwAwayCertificates(ClusterSpec.fromFlags(psHosts, workerHosts));
      security = SecurityFlags.TLS_DIR + "=" + throwAway;
    }
    List<TaskProcess> tasks = new ArrayList<>();
    for (int i = 0; i < ps + workers; i++) {
      String job = i < ps ? "ps" : "worker";
      int index = i < ps ? i : i - ps;
      List<String> command = new ArrayList<>(i < ps ? psJava : workerJava);
      command.addAll(List.of(program, "--job_name=" + job, "--task_index=" + index,
          "--ps_hosts=" + psHosts, "--worker_hosts=" + workerHosts, security));
      if (metrics) {
        command.add(MetricsFlags.METRICS_PORT + "=" + ports.get(ps + workers + i));
      }
      command.addAll(programFlags);
      tasks.add(new TaskProcess(job + index, i < ps, command, out));
    }
    out.note(program + " on ps " + psHosts + ", workers " + workerHosts + (insecure ? ", in plaintext (--insecure)"
        : ", mutual TLS with the certificates of " + (throwAway != null ? throwAway + " (made for this run)" : tlsDir)));
    if (metrics) {
      List<String> where = new ArrayList<>();
      for (int i = 0; i < ps + workers; i++) {
        where.add((i < ps ? "ps" + i : "worker" + (i - ps)) + " http://127.0.0.1:" + ports.get(ps + workers + i) + "/metrics");
      }
      out.note("metrics: " + String.join(", ", where));
    }
    try {
      return new LocalCluster(tasks, restartOnFailure, kills, maxLostWorkers(psHosts, workerHosts), out).run();
    } finally {
      if (throwAway != null) {
        deleteTree(throwAway);
      }
    }
  }

  /** Whether the program starts a server that can serve /metrics (it takes --metrics_port): then each task gets a port. */
  private boolean hasMetrics() {
    return spec.root().subcommands().get(program).getCommandSpec().findOption(MetricsFlags.METRICS_PORT) != null;
  }

  /** A new CA and certificates for every task (and a client) in a fresh temporary directory, valid one day. */
  private static Path throwAwayCertificates(ClusterSpec cluster) {
    try {
      Path dir = Files.createTempDirectory("psflow-local-cluster-tls-");
      ClusterCertificates.write(cluster, dir, Duration.ofDays(1));
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make a temporary directory for the cluster's certificates", e);
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // A temporary directory: the system cleans it eventually.
    }
  }

  /**
   * How many non-chief workers the program's job can lose and go on: asked of the program itself
   * (a {@link BackupWorkers}), given the flags its tasks get; 0 for any other program, or when its
   * flags do not parse (the tasks then say what is wrong).
   */
  private int maxLostWorkers(String psHosts, String workerHosts) {
    // The program's own model, which this launcher never runs: building another (16 ms of
    // reflection) delayed the first task's start.
    CommandLine program = spec.root().subcommands().get(this.program);
    if (!(program.getCommandSpec().userObject() instanceof BackupWorkers)) {
      return 0;
    }
    List<String> args = new ArrayList<>(List.of("--job_name=worker", "--task_index=0", "--ps_hosts=" + psHosts,
        "--worker_hosts=" + workerHosts));
    args.addAll(programFlags);
    try {
      program.parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      return 0;
    }
    return Math.max(0, ((BackupWorkers) program.getCommand()).maxLostWorkers(workers));
  }

  private void checkFlags() {
    if (ps < 1) {
      throw usage("--ps must be at least 1, got " + ps);
    }
    if (workers < 1) {
      throw usage("--workers must be at least 1, got " + workers);
    }
    if (insecure && tlsDir != null) {
      throw usage("give --tls_dir or --insecure, not both");
    }
    // From Main's list, not the parsed subcommands: Main gave picocli only the programs this command line names.
    List<String> programs = Main.programs();
    if (!programs.contains(program) || !spec.root().subcommands().containsKey(program)) {
      throw usage("unknown PROGRAM '" + program + "'; one of: "
          + String.join(", ", programs.stream().filter(p -> !Main.isHidden(p)).toList()));
    }
    for (String flag : programFlags) {
      for (String ours : CLUSTER_FLAGS) {
        if (flag.equals(ours) || flag.startsWith(ours + "=")) {
          throw usage(ours + " is set by local-cluster for each task; " + (ours.equals(SecurityFlags.TLS_DIR)
              || ours.equals(SecurityFlags.INSECURE) ? "give it to local-cluster, before PROGRAM" : "remove it from the program's flags"));
        }
      }
    }
  }

  private List<LocalCluster.Kill> parseKills() {
    List<LocalCluster.Kill> parsed = new ArrayList<>();
    for (String k : kills) {
      Matcher m = KILL.matcher(k);
      if (!m.matches()) {
        throw usage("--kill=" + k + ": expected TASK@SECONDS or TASK@after:REGEX, e.g. worker1@5, ps0@2.5 or "
            + "ps0@after:Saving checkpoints");
      }
      int index = Integer.parseInt(m.group(2));
      int count = m.group(1).equals("ps") ? ps : workers;
      if (index >= count) {
        throw usage("--kill=" + k + ": there is no task " + m.group(1) + index + " (--ps=" + ps + ", --workers=" + workers + ")");
      }
      String task = m.group(1) + index;
      if (m.group(4) != null) {
        try {
          parsed.add(LocalCluster.Kill.afterLine(task, Pattern.compile(m.group(4))));
        } catch (PatternSyntaxException e) {
          throw usage("--kill=" + k + ": not a regular expression: " + e.getDescription());
        }
      } else {
        parsed.add(new LocalCluster.Kill(task, Duration.ofMillis(Math.round(Double.parseDouble(m.group(3)) * 1000))));
      }
    }
    return parsed;
  }

  private static String hosts(List<Integer> ports) {
    return String.join(",", ports.stream().map(p -> "127.0.0.1:" + p).toList());
  }

  /**
   * The command line that starts this same psflow, less the flags of the launcher's role: this JVM's
   * binary and flags, and either {@code -jar psflow.jar} (keeping the jar manifest's module flags) or
   * {@code -cp <class path> Main}.
   */
  static List<String> javaCommand() {
    List<String> c = new ArrayList<>();
    c.add(ProcessHandle.current().info().command()
        .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java"));
    c.addAll(taskJvmFlags(ManagementFactory.getRuntimeMXBean().getInputArguments(),
        flagList(System.getProperty(LAUNCHER_JVM_FLAGS, ""))));
    // Tasks' output is read as UTF-8, whatever the locale says.
    c.addAll(List.of("-Dstdout.encoding=UTF-8", "-Dstderr.encoding=UTF-8"));
    c.add("-D" + ParentWatchdog.PROPERTY + "=" + ProcessHandle.current().pid());
    String classPath = System.getProperty("java.class.path");
    if (isPsflowJar(classPath)) {
      c.addAll(List.of("-jar", classPath));
    } else {
      c.addAll(List.of("-cp", classPath, Main.class.getName()));
    }
    return c;
  }

  /**
   * The launcher's own JVM flags that its tasks start with: all of them, less a debugger agent
   * (it would try to listen on the same port in every task), the parent-watchdog property, the
   * properties naming role flags, and the first occurrence of each flag in {@code launcherOnly}
   * (what bin/jvm-flags.sh gave the launcher for its role, at C1 only). Later occurrences are a
   * user's own ({@code PSFLOW_JAVA_OPTS}) and stay.
   */
  static List<String> taskJvmFlags(List<String> launcherFlags, List<String> launcherOnly) {
    List<String> dropOnce = new ArrayList<>(launcherOnly);
    List<String> c = new ArrayList<>();
    for (String a : launcherFlags) {
      if (dropOnce.remove(a) || a.startsWith("-D" + LAUNCHER_JVM_FLAGS + "=")
          || a.startsWith("-D" + C1_TASK_JVM_FLAGS + "=") || a.startsWith("-D" + C2_TASK_JVM_FLAGS + "=")
          || a.startsWith("-D" + PS_TASK_JVM_FLAGS + "=")
          || a.startsWith("-agentlib:jdwp")
          || a.startsWith("-Xrunjdwp") || a.startsWith("-D" + ParentWatchdog.PROPERTY + "=")) {
        continue;
      }
      c.add(a);
    }
    return c;
  }

  /**
   * The role flags of a task at C1 only: those {@link #C1_TASK_JVM_FLAGS} lists ({@code c1TaskFlags}),
   * or {@code -XX:TieredStopAtLevel=1} alone for a launcher started without bin/psflow.
   */
  static List<String> c1Flags(String c1TaskFlags) {
    List<String> flags = flagList(c1TaskFlags);
    return flags.isEmpty() ? List.of("-XX:TieredStopAtLevel=1") : flags;
  }

  /**
   * The role flags of a ps task: those {@link #PS_TASK_JVM_FLAGS} lists ({@code psTaskFlags}), or a C1
   * task's ({@link #c1Flags}) where bin/jvm-flags.sh named none.
   */
  static List<String> psFlags(String psTaskFlags, String c1TaskFlags) {
    List<String> flags = flagList(psTaskFlags);
    return flags.isEmpty() ? c1Flags(c1TaskFlags) : flags;
  }

  /**
   * The collector's threads of each of {@code tasks} tasks that share {@code cores} cores: their
   * share of the cores, at least one. A JVM sizes its collector for the whole machine, so on two
   * cores each task's young collections ran two threads that then waited for each other while the
   * other tasks wanted the cores; at one each the README job took 10.81 s of CPU against 11.09 s (9
   * of 12 alternated pairs; with the default, 17 of 22 in two batches used more; docs/benchmarks.md).
   * A role flag: a {@code -XX:ParallelGCThreads} of the user's own comes later and wins.
   */
  static String gcThreadsFlag(int cores, int tasks) {
    return "-XX:ParallelGCThreads=" + Math.max(1, cores / Math.max(1, tasks));
  }

  /**
   * A task's command: {@code java} with its role's flags right after the binary, so that the
   * launcher's own flags, a user's {@code PSFLOW_JAVA_OPTS} among them, come later and win.
   */
  static List<String> withRoleFlags(List<String> java, List<String> roleFlags) {
    List<String> c = new ArrayList<>(java);
    c.addAll(1, roleFlags);
    return c;
  }

  /** A list of flags written one per line (a flag, e.g. a cache's path, may hold spaces). */
  static List<String> flagList(String lines) {
    return lines.lines().filter(l -> !l.isBlank()).toList();
  }

  /**
   * Whether a worker of {@code program} runs at C1 only, as a ps does ({@link #c1Flags}), its
   * matrix products on OpenBLAS (psflow-core's NativeBlas): the replica programs, whose hot kernels
   * are matrix products, on Linux x86-64, the platform psflow ships OpenBLAS's natives for.
   * bin/jvm-flags.sh decides the same for a worker started by hand (see there for why and the figures).
   */
  static boolean nativeGemmWorker(String program, String osName, String osArch) {
    return (program.equals("mnist-replica") || program.equals("in-graph-replica"))
        && "Linux".equals(osName) && ("amd64".equals(osArch) || "x86_64".equals(osArch));
  }

  private static boolean isPsflowJar(String classPath) {
    if (classPath.contains(File.pathSeparator) || !classPath.endsWith(".jar")) {
      return false;
    }
    try (JarFile jar = new JarFile(classPath)) {
      return jar.getManifest() != null
          && Main.class.getName().equals(jar.getManifest().getMainAttributes().getValue("Main-Class"));
    } catch (IOException e) {
      return false;
    }
  }

  private static UserErrors.UsageException usage(String message) {
    return new UserErrors.UsageException(message);
  }
}
