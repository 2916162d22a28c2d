package dev.psflow.cli;

import dev.psflow.distributed.Explanation;
import dev.psflow.cluster.ClusterSpec;
import dev.psflow.examples.Toy;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code psflow toy}: the parameter-placement example (w, b on the ps; add, mul, div on three workers). */
@Command(name = "toy", mixinStandardHelpOptions = true,
    description = "w and b on /job:ps/task:0; w+b, w*b, w/b on workers 0, 1, 2; worker 0's client prints them.")
public final class ToyCommand implements Callable<Integer>, StepToExplain {
  @Option(names = "--job_name", required = true, description = "ps or worker")
  String jobName;

  @Option(names = "--task_index", required = true, description = "The task's index in its job.")
  int taskIndex;

  @Option(names = "--ps_hosts", defaultValue = "localhost:2222", description = "Comma-separated host:port of the ps tasks.")
  String psHosts;

  @Option(names = "--worker_hosts", defaultValue = "localhost:2223,localhost:2224,localhost:2225",
      description = "Comma-separated host:port of the worker tasks.")
  String workerHosts;

  @Mixin SecurityFlags security = new SecurityFlags();

  @Mixin ServerLimitOptions limits = new ServerLimitOptions();

  @Mixin MetricsFlags metrics = new MetricsFlags();

  @Override
  public Integer call() throws InterruptedException {
    Toy.run(ClusterSpec.fromFlags(psHosts, workerHosts), jobName, taskIndex, security.security(),
        metrics.apply(limits.serverOptions()), System.out);
    return 0;
  }

  @Override
  public Explanation.Step describeStep() {
    ClusterSpec cluster = ClusterSpec.fromFlags(psHosts, workerHosts);
    Toy.ToyGraph t = Toy.buildGraph(cluster.numTasks("worker"));
    return new Explanation.Step("toy", t.graph(), cluster, ClusterSpec.taskName("worker", 0),
        dev.psflow.exec.SessionOptions.DEFAULTS, List.of(), List.of(), List.of(t.add(), t.mul(), t.div()), List.of());
  }
}
