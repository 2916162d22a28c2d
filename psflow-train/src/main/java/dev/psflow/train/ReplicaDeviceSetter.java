package dev.psflow.train;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.graph.DeviceFunction;
import dev.psflow.graph.DeviceSpec;
import dev.psflow.graph.Operation;
import dev.psflow.ops.Ops;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TensorFlow's {@code tf.train.replica_device_setter}: a device function that sends the ops that
 * create variables to ps tasks and every other op to the worker device. Parts of an op's own
 * request win over the setter's, as TensorFlow's merge does. Ops colocated with a variable (its
 * reads, initializer, optimizer slots and applies) follow the variable and never reach the setter.
 *
 * <p>Size-aware by default: each variable goes to the ps task holding the fewest bytes so far
 * ({@link GreedyLoadBalancingStrategy}, TensorFlow's {@code byte_size_load_fn}); pass
 * {@link RoundRobinStrategy} (TensorFlow's own default) to place by creation order instead. A
 * variable made through {@link PartitionedVariable#create(Ops, String, dev.psflow.tensor.Shape,
 * dev.psflow.tensor.DType, PartitionedVariable.Initializer)} and larger than
 * {@link #partitionThresholdBytes()} (64 MiB by default) is split along axis 0 over all ps tasks
 * ({@link #partitioner()}); a plain variable above it is placed whole, with a warning.
 *
 * <p>Not thread-safe (the strategy counts what it placed): one setter per graph, built on one thread.
 *
 * <pre>{@code
 * Ops tf = Ops.create(graph).withDeviceFunction(
 *     ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:1"));
 * Variable w = tf.variable("hid_w", init);   // on the least loaded ps task
 * PartitionedVariable e = PartitionedVariable.create(tf, "embeddings", Shape.of(7_812_500, 32), DType.FLOAT32, init);
 * }</pre>
 */
public final class ReplicaDeviceSetter implements DeviceFunction {
  /** The op types that hold state and so belong on a ps (TensorFlow's STANDARD_PS_OPS, for resource variables). */
  public static final Set<String> PS_OPS = Set.of("VarHandleOp", "Variable", "VariableV2");

  /** Variables above this many bytes are partitioned over all ps tasks unless told otherwise: 64 MiB. */
  public static final long DEFAULT_PARTITION_THRESHOLD_BYTES = 64L << 20;

  private static final Logger LOG = LoggerFactory.getLogger(ReplicaDeviceSetter.class);

  private final int psTasks;
  private final DeviceSpec psDevice;
  private final DeviceSpec workerDevice;
  private final PsStrategy strategy;
  private final long partitionThresholdBytes;

  /** With the default partition threshold; {@code strategy} null means greedy by bytes. */
  public ReplicaDeviceSetter(int psTasks, String psDevice, String workerDevice, PsStrategy strategy) {
    this(psTasks, psDevice, workerDevice, strategy, DEFAULT_PARTITION_THRESHOLD_BYTES);
  }

  /**
   * @param strategy the ps task of each variable; null means {@link GreedyLoadBalancingStrategy}
   * @param partitionThresholdBytes variables larger than this are partitioned over all ps tasks
   *     ({@code Long.MAX_VALUE}: never)
   */
  public ReplicaDeviceSetter(int psTasks, String psDevice, String workerDevice, PsStrategy strategy,
      long partitionThresholdBytes) {
    if (psTasks < 0) {
      throw new IllegalArgumentException("ps_tasks must be >= 0, got " + psTasks);
    }
    if (partitionThresholdBytes <= 0) {
      throw new IllegalArgumentException("the partition threshold must be positive, got " + partitionThresholdBytes + " bytes");
    }
    this.psTasks = psTasks;
    this.psDevice = DeviceSpec.parse(psDevice);
    this.workerDevice = DeviceSpec.parse(workerDevice);
    this.strategy = strategy != null ? strategy : (psTasks > 0 ? new GreedyLoadBalancingStrategy(psTasks) : op -> 0);
    this.partitionThresholdBytes = partitionThresholdBytes;
  }

  /** Takes the number of ps tasks from {@code cluster}'s "ps" job, the default ps device "/job:ps". */
  public static ReplicaDeviceSetter forCluster(ClusterSpec cluster, String workerDevice) {
    return forCluster(cluster, workerDevice, "/job:ps", null);
  }

  public static ReplicaDeviceSetter forCluster(ClusterSpec cluster, String workerDevice, String psDevice,
      PsStrategy strategy) {
    return forCluster(cluster, workerDevice, psDevice, strategy, DEFAULT_PARTITION_THRESHOLD_BYTES);
  }

  public static ReplicaDeviceSetter forCluster(ClusterSpec cluster, String workerDevice, String psDevice,
      PsStrategy strategy, long partitionThresholdBytes) {
    int ps = cluster.numTasks("ps");
    if (ps == 0) {
      throw new IllegalArgumentException("the cluster has no ps job: " + cluster);
    }
    return new ReplicaDeviceSetter(ps, psDevice, workerDevice, strategy, partitionThresholdBytes);
  }

  /** The innermost replica device setter {@code tf} places by, or null when it has none. */
  public static ReplicaDeviceSetter of(Ops tf) {
    var functions = tf.scope().deviceFunctions();
    for (int i = functions.size() - 1; i >= 0; i--) {
      if (functions.get(i) instanceof ReplicaDeviceSetter setter) {
        return setter;
      }
    }
    return null;
  }

  public int psTasks() {
    return psTasks;
  }

  public long partitionThresholdBytes() {
    return partitionThresholdBytes;
  }

  /**
   * The partitioner of variables placed by this setter: one shard up to the threshold, one per ps
   * task above it (fewer when axis 0 is shorter), as {@code tf.fixed_size_partitioner(ps_tasks)}
   * applied to the large variables only.
   */
  public VariablePartitioner partitioner() {
    return VariablePartitioner.aboveThreshold(partitionThresholdBytes, Math.max(1, psTasks));
  }

  @Override
  public String deviceFor(Operation op) {
    DeviceSpec current = DeviceSpec.parse(op.device());
    if (psTasks > 0 && PS_OPS.contains(op.type())) {
      long bytes = GreedyLoadBalancingStrategy.byteSize(op);
      if (bytes > partitionThresholdBytes && !op.name().matches(".*/part_\\d+$")) {
        LOG.warn("variable {} holds {} bytes, over the partition threshold of {}, and is placed whole on one ps task; "
            + "create it with PartitionedVariable.create(tf, name, shape, dtype, init) to split it over the {} ps tasks",
            op.name(), bytes, partitionThresholdBytes, psTasks);
      }
      DeviceSpec ps = psDevice;
      if (ps.job() != null && (current.job() == null || current.job().equals(ps.job()))) {
        ps = ps.withTask(strategy.taskFor(op));
      }
      return ps.mergeFrom(current).toString();
    }
    return workerDevice.mergeFrom(current).toString();
  }
}
