package dev.psflow.train;

import dev.psflow.exec.Runner;
import dev.psflow.exec.Session;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.ops.Ops;
import dev.psflow.ops.io.RestoreV2;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * The restore ops of one {@link RestorePlan} that re-partitions: per device, one RestoreV2
 * colocated with that device's variables reads every piece its variables need (row ranges of the
 * saved parts, through TensorFlow slice specs), a Concat on the same device joins each variable's
 * pieces in row order, and every assign waits for every read, so a corrupt shard restores nothing.
 * Each ps thus reads, from the shared checkpoint directory, only the rows of the partitions it
 * holds, and no value crosses the network. The shard files are fed at run time (the plan names
 * shards by index position), so every checkpoint of the same layout reuses these ops. Built by
 * {@link Saver#restore} on first need; immutable, runs from any thread.
 *
 * <pre>{@code
 * RepartitionedRestore r = RepartitionedRestore.build(variablesByDevice, plan);
 * r.run(session, index);
 * }</pre>
 */
final class RepartitionedRestore {
  /** One device's RestoreV2 and the shard (index position) of each of its pieces. */
  private record DeviceRead(Output files, int[] shards) {}

  private final List<DeviceRead> reads;
  private final Operation restoreAll;

  private RepartitionedRestore(List<DeviceRead> reads, Operation restoreAll) {
    this.reads = reads;
    this.restoreAll = restoreAll;
  }

  /** Adds the ops to the variables' graph: {@code byDevice} is each device's variables. */
  static RepartitionedRestore build(List<List<Variable>> byDevice, RestorePlan plan) {
    Ops tf = Ops.create(Scope.root(byDevice.get(0).get(0).handle().op().graph()).withSubScope("restore_repartitioned"));
    List<DeviceRead> reads = new ArrayList<>();
    List<Operation> readOps = new ArrayList<>();
    List<Variable> targets = new ArrayList<>();
    List<Output> values = new ArrayList<>();
    for (List<Variable> vs : byDevice) {
      Ops onDevice = tf.withColocation(vs.get(0).handle().op());
      List<RestorePlan.Piece> pieces = new ArrayList<>();
      List<DType> dtypes = new ArrayList<>();
      for (Variable v : vs) {
        for (RestorePlan.Piece p : plan.pieces().get(v.name())) {
          pieces.add(p);
          dtypes.add(v.dtype());
        }
      }
      int n = pieces.size();
      Output files = tf.withName("restore_files").placeholder(DType.STRING, Shape.of(n));
      Output names = onDevice.constant(Tensor.of(pieces.stream().map(RestorePlan.Piece::name).toArray(String[]::new), n));
      Output specs = onDevice.constant(Tensor.of(pieces.stream().map(RestorePlan.Piece::slice).toArray(String[]::new), n));
      List<Output> out = RestoreV2.create(onDevice.scope(), files, names, specs, dtypes);
      readOps.add(out.get(0).op());
      reads.add(new DeviceRead(files, pieces.stream().mapToInt(RestorePlan.Piece::shard).toArray()));
      int k = 0;
      for (Variable v : vs) {
        int count = plan.pieces().get(v.name()).size();
        List<Output> parts = out.subList(k, k + count);
        values.add(count == 1 ? parts.get(0) : onDevice.concat(parts, 0));
        targets.add(v);
        k += count;
      }
    }
    Ops afterReads = tf.withControlDependencies(readOps);
    List<Operation> assigns = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      assigns.add(Saver.assignRestored(afterReads, targets.get(i), values.get(i)));
    }
    return new RepartitionedRestore(reads, tf.withName("restore_all").group(assigns));
  }

  /** Restores from the checkpoint {@code index}, whose layout is this one's plan. */
  void run(Session session, CheckpointIndex index) {
    Runner run = session.runner();
    for (DeviceRead r : reads) {
      String[] files = new String[r.shards().length];
      for (int i = 0; i < files.length; i++) {
        files[i] = index.dir().resolve(index.shards().get(r.shards()[i]).file()).toString();
      }
      run.feed(r.files(), Tensor.of(files, files.length));
    }
    run.addTarget(restoreAll).run();
  }
}
