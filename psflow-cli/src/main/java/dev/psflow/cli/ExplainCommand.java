package dev.psflow.cli;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.distributed.Explanation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code psflow explain <program> [flags]} or {@code psflow explain --graph_def=FILE [--fetch ...]}:
 * prints, without starting anything, where each op of one step runs and what crosses the wire
 * between tasks each step — for the built-in programs, or for any graph a program wrote.
 */
@Command(name = "explain", mixinStandardHelpOptions = true,
    description = "Show what each task runs in one step of a program and every tensor that crosses between tasks.",
    footer = {"", "Examples:",
        "  psflow explain mnist-replica --ps_hosts=localhost:2222 --worker_hosts=localhost:2223,localhost:2224",
        "  psflow explain --graph_def=model.pb --target=train --feed=x:0=100,784 --ps_hosts=h:1 --worker_hosts=h:2"})
public final class ExplainCommand implements Callable<Integer> {
  @Parameters(index = "0", arity = "0..1",
      description = "The program: mnist-replica, in-graph-replica, toy, embedding-lookup or embedding-replica (or give --graph_def).")
  String program;

  @Parameters(index = "1..*", arity = "0..*", description = "The program's flags.")
  List<String> programArgs = new ArrayList<>();

  @Option(names = "--graph_def", description = "A GraphDef file a program wrote (GraphDefFiles.write; .pbtxt for text).")
  Path graphDef;

  @Option(names = "--fetch", description = "A tensor the step fetches (repeatable).")
  List<String> fetches = new ArrayList<>();

  @Option(names = "--target", description = "An op the step runs (repeatable; default: every op nothing consumes).")
  List<String> targets = new ArrayList<>();

  @Option(names = "--feed", description = "A tensor the step feeds, with the shape fed: NAME=D0,D1,... (repeatable).")
  List<String> feeds = new ArrayList<>();

  @Option(names = "--ps_hosts", description = "Comma-separated host:port of the ps tasks (default: the jobs the graph's devices name).")
  String psHosts;

  @Option(names = "--worker_hosts", description = "Comma-separated host:port of the worker tasks.")
  String workerHosts;

  @Option(names = "--client_task", defaultValue = "/job:worker/task:0",
      description = "The task whose client runs the step (default: ${DEFAULT-VALUE}).")
  String clientTask;

  @CommandLine.Unmatched
  List<String> programFlags = new ArrayList<>();

  @Override
  public Integer call() {
    if (graphDef != null) {
      if (program != null) {
        throw new UserErrors.UsageException("give either a program or --graph_def, not both");
      }
      ClusterSpec cluster = psHosts != null || workerHosts != null ? ClusterSpec.fromFlags(psHosts, workerHosts) : null;
      Explanation.of(GraphDefStep.read(graphDef, cluster, clientTask, feeds, fetches, targets)).print(System.out);
      return 0;
    }
    if (program == null) {
      throw new UserErrors.UsageException("explain needs a program (mnist-replica, in-graph-replica, toy, embedding-lookup, embedding-replica) or --graph_def=FILE");
    }
    Object command = switch (program) {
      case "mnist-replica" -> new MnistReplicaCommand();
      case "in-graph-replica" -> new InGraphReplicaCommand();
      case "toy" -> new ToyCommand();
      case "embedding-lookup" -> new EmbeddingLookupCommand();
      case "embedding-replica" -> new EmbeddingReplicaCommand();
      default -> throw new UserErrors.UsageException("explain knows the programs mnist-replica, in-graph-replica, toy, embedding-lookup and embedding-replica,"
          + " not '" + program + "'; for a program of your own, write its graph (GraphDefFiles.write) and give --graph_def=FILE");
    };
    List<String> args = new ArrayList<>(programFlags);
    args.addAll(programArgs);
    if (psHosts != null) {
      args.add("--ps_hosts=" + psHosts);
    }
    if (workerHosts != null) {
      args.add("--worker_hosts=" + workerHosts);
    }
    if (command instanceof ToyCommand) {
      args.add(0, "--job_name=worker");
      args.add(1, "--task_index=0");
    }
    new CommandLine(command).parseArgs(args.toArray(String[]::new));
    Explanation.of(((StepToExplain) command).describeStep()).print(System.out);
    return 0;
  }
}
