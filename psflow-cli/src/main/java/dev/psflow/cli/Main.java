package dev.psflow.cli;

import dev.psflow.distributed.ProcessExit;
import dev.psflow.distributed.certs.ClusterCertificates;
import dev.psflow.ops.KernelWarmup;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code psflow} command: one subcommand per program. A user mistake (bad flag, bad cluster
 * spec, missing data) ends with one line naming the flag and what to do, and exit code 2; never a
 * stack trace.
 */
@Command(
    name = "psflow",
    mixinStandardHelpOptions = true,
    version = "psflow 0.1.0",
    description = "TensorFlow 1.x's parameter-server training, in Java.")
public final class Main implements Runnable {
  /** The subcommands, in the order {@code psflow --help} lists them. */
  private static final List<Class<?>> COMMANDS = List.of(MnistCommand.class, MnistReplicaCommand.class,
      ServerCommand.class, ToyCommand.class, ExplainCommand.class, InGraphReplicaCommand.class,
      LocalClusterCommand.class, StatusCommand.class, CertsCommand.class, EchoTaskCommand.class, ProbeCommand.class,
      EmbeddingLookupCommand.class, EmbeddingReplicaCommand.class, CommandLine.HelpCommand.class);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    ParentWatchdog.startIfAsked();
    warmUpKernelsFor(args);
    // Ends the servers and the transport's threads before the JVM halts, after System.exit below
    // and on SIGTERM (a ps is stopped so): the JVM halts once its shutdown hooks have returned. See
    // ProcessExit for why.
    Runtime.getRuntime().addShutdownHook(new Thread(ProcessExit::release, "psflow-process-exit"));
    System.exit(run(args));
  }

  /** Commands that run no kernels of their own: they start tasks, write files or ask a server. */
  private static final Set<String> NOT_TRAINING =
      Set.of("local-cluster", "certs", "explain", "echo-task", "probe", "status", "help");

  /**
   * Starts compiling the kernels this process will run before picocli has even parsed the flags:
   * a ps task applies updates, a worker computes gradients, a program alone does both, and a
   * launcher none (its tasks share the machine's cores while they start). A cluster task, and
   * local-cluster's launcher, also get {@link TaskJitDirectives}; a cluster task runs under
   * {@link BatchScheduling}.
   */
  static void warmUpKernelsFor(String[] args) {
    String command = null;
    String job = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (command == null && !a.startsWith("-")) {
        command = a;
      } else if (a.startsWith("--job_name=")) {
        job = a.substring("--job_name=".length());
      } else if (a.equals("--job_name") && i + 1 < args.length) {
        job = args[i + 1];
      }
    }
    if ("local-cluster".equals(command)) {
      // Before any task starts, the launcher's main thread parses the flags and makes the cluster's
      // certificates; beside it, on the core the tasks do not use yet: the certificates' slow first
      // run, then the JIT directives (it relays its tasks' output lines: nothing worth C2's time).
      boolean makesCertificates = Arrays.stream(args).noneMatch(a -> a.equals(SecurityFlags.INSECURE)
          || a.startsWith(SecurityFlags.TLS_DIR));
      Thread t = new Thread(() -> {
        if (makesCertificates) {
          ClusterCertificates.warmUp();
        }
        TaskJitDirectives.add();
      }, "psflow-launcher-warmup");
      t.setDaemon(true);
      t.start();
    }
    if (command == null || NOT_TRAINING.contains(command)) {
      return;
    }
    if (job != null || "server".equals(command) || System.getenv("TF_CONFIG") != null) {
      BatchScheduling.applyToThisTask(); // a cluster task: before it starts threads of its own
      TaskJitDirectives.add(); // before the kernels below start compiling
    }
    KernelWarmup.start(!"ps".equals(job), job == null || "ps".equals(job));
  }

  /** Runs the command line and returns the exit code (for tests and for embedding). */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new Main());
    for (Class<?> c : commandsFor(args)) {
      CommandLine sub = new CommandLine(c);
      // addSubcommand gives the subcommand its parent's parser settings: keep its own (local-cluster
      // stops at its program's name)
      boolean stopAtPositional = sub.getCommandSpec().parser().stopAtPositional();
      cli.addSubcommand(sub);
      sub.getCommandSpec().parser().stopAtPositional(stopAtPositional);
    }
    cli.setParameterExceptionHandler(Main::parameterError);
    cli.setExecutionExceptionHandler(Main::executionError);
    return cli.execute(args);
  }

  /**
   * The subcommands worth a model for this command line. picocli builds a model of every subcommand
   * it is given, reflecting over all their options: a third of a second of a task's start-up, paid
   * by every JVM of a cluster, and before local-cluster's launcher starts its first task. A command
   * line that names its program gets that one alone; local-cluster gets itself and the programs its
   * arguments name (its PROGRAM is one of them); anything else (no program, help, a flag, a typo)
   * gets all.
   */
  static List<Class<?>> commandsFor(String... args) {
    if (args.length == 0 || args[0].equals("help")) {
      return COMMANDS;
    }
    boolean cluster = args[0].equals("local-cluster");
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    List<Class<?>> named = COMMANDS.stream().filter(c -> cluster
        ? c == LocalClusterCommand.class || rest.contains(name(c)) : name(c).equals(args[0])).toList();
    return named.size() > (cluster ? 1 : 0) ? named : COMMANDS;
  }

  /** The programs local-cluster can run, as {@code psflow --help} lists them (hidden ones too). */
  static List<String> programs() {
    return COMMANDS.stream().filter(c -> c != LocalClusterCommand.class && c != CommandLine.HelpCommand.class)
        .map(Main::name).toList();
  }

  /** Whether {@code psflow --help} leaves the program out of its list. */
  static boolean isHidden(String program) {
    return COMMANDS.stream().anyMatch(c -> name(c).equals(program) && c.getAnnotation(Command.class).hidden());
  }

  private static String name(Class<?> command) {
    return command.getAnnotation(Command.class).name();
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  private static int parameterError(CommandLine.ParameterException e, String[] args) {
    PrintWriter err = e.getCommandLine().getErr();
    err.println("psflow: " + e.getMessage());
    err.println("Run '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help' for the flags.");
    err.flush();
    return 2;
  }

  private static int executionError(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
    PrintWriter err = cli.getErr();
    err.println("psflow " + cli.getCommandName() + ": " + UserErrors.describe(e));
    err.flush();
    return UserErrors.isUserError(e) ? 2 : 1;
  }
}
