package dev.psflow.distributed;

import dev.psflow.exec.Partition;
import dev.psflow.exec.Partitioner;
import dev.psflow.exec.Placer;
import dev.psflow.exec.Pruner;
import dev.psflow.exec.SessionOptions;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.proto.RegisterGraphRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one kind of step runs: the partitions of the pruned, placed graph, each registered with its
 * task. Built once per (feeds, fetches, targets) of a session, in two stages: {@link #partition}
 * (pure computation) and {@link #register} (one RegisterGraph per task, all at once, never waited
 * on by a thread).
 */
record StepPlan(List<Output> feeds, List<Part> parts) {
  private static final Logger LOG = LoggerFactory.getLogger(StepPlan.class);

  /** One registered partition: where it runs and which feeds and fetches are its. */
  record Part(String task, WorkerClient client, String graphHandle, List<Integer> feedIndex, List<Integer> fetchIndex) {}

  /** Prunes, places and partitions the graph of one step signature. */
  static List<Partition> partition(List<Output> feeds, List<Output> fetches, List<Operation> targets,
      List<String> devices, String defaultDevice, SessionOptions options) {
    List<Operation> roots = new ArrayList<>(targets);
    HashSet<Output> fed = new HashSet<>(feeds);
    for (Output f : fetches) {
      if (!fed.contains(f)) {
        roots.add(f.op());
      }
    }
    List<Operation> ops = Pruner.prune(roots, fed);
    Map<Operation, String> placement = Placer.place(ops, devices, defaultDevice, options.allowSoftPlacement());
    if (options.logDevicePlacement()) {
      ops.forEach(op -> LOG.info("{}: ({}): {}", op.name(), op.type(), placement.get(op)));
    }
    return Partitioner.partition(ops, placement, feeds, fetches, targets);
  }

  /** Registers every partition with its task; completes when all have answered. */
  static CompletableFuture<StepPlan> register(String session, List<Output> feeds, List<Partition> partitions,
      WorkerCache workers) {
    List<CompletableFuture<Part>> parts = new ArrayList<>(partitions.size());
    for (Partition p : partitions) {
      String task = StepRendezvous.taskOf(p.device());
      WorkerClient client = workers.client(task);
      RegisterGraphRequest req = RegisterGraphRequest.newBuilder()
          .setSessionHandle(session)
          .setGraphDef(GraphDefs.toProto(p.graph()))
          .addAllFeed(p.feedNames())
          .addAllFetch(p.fetchNames())
          .addAllTarget(p.targetNames())
          .build();
      parts.add(client.registerGraph(req).handle((handle, e) -> {
        if (e != null) {
          throw StatusException.from(e instanceof CompletionException ? e.getCause() : e)
              .withContext("cannot register the partition of " + task);
        }
        return new Part(task, client, handle, p.feedIndex(), p.fetchIndex());
      }));
    }
    return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new))
        .thenApply(v -> new StepPlan(List.copyOf(feeds), parts.stream().map(CompletableFuture::join).toList()));
  }
}
