package dev.psflow.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code psflow explain <program> [flags]}: prints, without starting anything, where each op of the
 * program's step runs and what crosses the wire between tasks each step.
 */
@Command(name = "explain", mixinStandardHelpOptions = true,
    description = "Show what each task runs in one step of a program and every tensor that crosses between tasks.")
public final class ExplainCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "The program: mnist-replica, toy or embedding-lookup.")
  String program;

  @Parameters(index = "1..*", arity = "0..*", description = "The program's flags.")
  List<String> programArgs = new ArrayList<>();

  @CommandLine.Unmatched
  List<String> programFlags = new ArrayList<>();

  @Override
  public Integer call() {
    Object command = switch (program) {
      case "mnist-replica" -> new MnistReplicaCommand();
      case "toy" -> new ToyCommand();
      case "embedding-lookup" -> new EmbeddingLookupCommand();
      default -> throw new UserErrors.UsageException(
          "explain knows the programs mnist-replica, toy and embedding-lookup, not '" + program + "'");
    };
    List<String> args = new ArrayList<>(programFlags);
    args.addAll(programArgs);
    if (command instanceof ToyCommand) {
      args.add(0, "--job_name=worker");
      args.add(1, "--task_index=0");
    }
    new CommandLine(command).parseArgs(args.toArray(String[]::new));
    Explanation.of(((StepToExplain.Source) command).describeStep()).print(System.out);
    return 0;
  }
}
