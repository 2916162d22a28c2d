package dev.psflow.train;

import dev.psflow.exec.Runner;
import dev.psflow.exec.Session;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.AssignVariableOp;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TensorFlow's {@code tf.train.Saver}: saves variables to a checkpoint and restores them, one
 * shard per device. The variables are grouped by the device of their handle; each group gets a
 * {@code SaveV2} and a {@code RestoreV2} colocated with it, so every ps task writes and reads its own
 * variables on its own disk, in parallel, and no value crosses the network. The ps tasks and the
 * chief must share the checkpoint directory's file system (one machine, as the replica example
 * on one host, or a shared mount): the chief names the shard files and then reads their headers.
 *
 * <p>A checkpoint {@code dir/model.ckpt-200} is: one safetensors file per device
 * ({@code model.ckpt-200.shard-0-of-2.safetensors}: readable by numpy, PyTorch or any safetensors
 * reader), an index ({@code model.ckpt-200.index.json}: variable to shard, dtype, shape; each shard's
 * size and CRC32C) and the directory's {@code checkpoint} file naming the latest one and the kept
 * ones, as TensorFlow writes it. Every file is written under a temporary name, forced to disk and
 * renamed; the shards first, then the index, then {@code checkpoint}, so a crash at any point leaves
 * the previous checkpoint as the latest complete one, and a checkpoint whose shards are missing,
 * truncated or not those its index records is never restored. Saving twice under one step rewrites
 * that checkpoint's shards in place; a crash then makes it fail verification, and
 * {@link #latestCheckpoint} falls back to the one before.
 *
 * <p>Big variables: each SaveV2 streams its variables' own storage to the file through a 1 MiB
 * buffer (no copy of the table), and the index records each partition's {@link SaveSliceInfo},
 * so a checkpoint saved over P ps tasks restores into a graph that partitions the same variables
 * over Q: each new part is assembled, on the ps holding it, from the rows of the saved parts that
 * overlap it, reading only those rows ({@link RestorePlan}, {@link RepartitionedRestore}).
 *
 * <p>Build it before opening sessions that use it (it adds ops to the graph; a restore onto a
 * different partitioning adds its own on first use, which sessions ship as they do any new op).
 * Immutable but for that cache; a save and a restore may run from any thread, but two concurrent
 * saves into one directory are not supported.
 *
 * <pre>{@code
 * Saver saver = new Saver(graph);                       // every global variable, keeps the last 5
 * String path = saver.save(session, logDir, 200);       // logDir/model.ckpt-200
 * Saver.latestCheckpoint(logDir).ifPresent(p -> saver.restore(session, p));
 * }</pre>
 */
public final class Saver {
  private static final Logger LOG = LoggerFactory.getLogger(Saver.class);
  public static final String DEFAULT_PREFIX = "model.ckpt";
  public static final int DEFAULT_MAX_TO_KEEP = 5;

  /** The ops of one device's shard: its variables, the save and the restore, fed with file names. */
  private record Shard(String device, List<Variable> variables, Output file, Operation save, Output restoreFiles) {}

  private final List<Variable> variables;
  private final Map<String, SaveSliceInfo> slices = new HashMap<>();
  private final int maxToKeep;
  private final List<Shard> shards;
  private final Operation restoreAll;
  /** The restore ops of each re-partitioning layout met so far, built on first use. */
  private final Map<RestorePlan, RepartitionedRestore> repartitioned = new ConcurrentHashMap<>();

  /** Saves every global variable of {@code graph} built so far, keeping the last 5 checkpoints. */
  public Saver(Graph graph) {
    this(graph.collection(Variable.GLOBAL_VARIABLES, Variable.class), DEFAULT_MAX_TO_KEEP);
  }

  /** Saves every global variable of {@code graph} built so far, keeping the last {@code maxToKeep}. */
  public Saver(Graph graph, int maxToKeep) {
    this(graph.collection(Variable.GLOBAL_VARIABLES, Variable.class), maxToKeep);
  }

  public Saver(List<Variable> variables) {
    this(variables, DEFAULT_MAX_TO_KEEP);
  }

  /** Saves {@code variables}, keeping the last {@code maxToKeep} checkpoints (all of them when 0 or less). */
  public Saver(List<Variable> variables, int maxToKeep) {
    this.variables = List.copyOf(variables);
    this.maxToKeep = maxToKeep;
    Map<String, List<Variable>> byDevice = byDevice(variables);
    Set<String> saved = new HashSet<>(variables.stream().map(Variable::name).toList());
    for (SaveSliceInfo.Tagged t : variables.get(0).handle().op().graph().collection(SaveSliceInfo.COLLECTION,
        SaveSliceInfo.Tagged.class)) {
      if (saved.contains(t.variable())) {
        slices.put(t.variable(), t.info());
      }
    }
    Ops tf = Ops.create(Scope.root(variables.get(0).handle().op().graph()).withSubScope("save"));
    this.shards = new ArrayList<>();
    List<Operation> reads = new ArrayList<>();
    List<List<Output>> restored = new ArrayList<>();
    for (Map.Entry<String, List<Variable>> e : byDevice.entrySet()) {
      List<Variable> vs = e.getValue();
      Ops onDevice = tf.withColocation(vs.get(0).handle().op());
      List<String> varNames = vs.stream().map(Variable::name).toList();
      List<DType> dtypes = vs.stream().map(Variable::dtype).toList();
      Output file = tf.withName("shard_file").placeholder(DType.STRING, Shape.scalar());
      // the handles, not reads: SaveV2 streams each variable's own storage, with no copy of a big table
      Operation save = onDevice.saveV2(file, varNames, vs.stream().map(Variable::handle).toList());
      Output restoreFiles = tf.withName("restore_files").placeholder(DType.STRING, Shape.of(vs.size()));
      List<Output> values = onDevice.restoreV2(restoreFiles, varNames, dtypes);
      reads.add(values.get(0).op());
      restored.add(values);
      shards.add(new Shard(e.getKey(), List.copyOf(vs), file, save, restoreFiles));
    }
    // Every assign waits for every shard's read, so a corrupt shard anywhere restores nothing.
    Ops afterReads = tf.withControlDependencies(reads);
    List<Operation> assigns = new ArrayList<>();
    for (int i = 0; i < shards.size(); i++) {
      List<Variable> vs = shards.get(i).variables();
      for (int j = 0; j < vs.size(); j++) {
        assigns.add(assignRestored(afterReads, vs.get(j), restored.get(i).get(j)));
      }
    }
    this.restoreAll = tf.withName("restore_all").group(assigns);
  }

  /**
   * Assigns a freshly restored tensor to {@code v}, which takes it as its storage (no copy of a
   * big table): the restore's outputs have this assign as their only consumer and are never fetched.
   */
  static Operation assignRestored(Ops tf, Variable v, Output restored) {
    return AssignVariableOp.createTakingInput(tf.scope().withColocation(v.handle().op()), v.handle(), restored);
  }

  /** The variables grouped by the device of their handle, devices in name order. */
  private static Map<String, List<Variable>> byDevice(List<Variable> variables) {
    if (variables.isEmpty()) {
      throw new IllegalArgumentException("no variables to save");
    }
    Set<String> names = new HashSet<>();
    Map<String, List<Variable>> byDevice = new TreeMap<>();
    for (Variable v : variables) {
      if (!names.add(v.name())) {
        throw new IllegalArgumentException("variable " + v.name() + " is listed twice");
      }
      byDevice.computeIfAbsent(v.device(), d -> new ArrayList<>()).add(v);
    }
    return byDevice;
  }

  /** The variables this saver saves and restores, in its order. */
  public List<Variable> variables() {
    return variables;
  }

  /** {@code save(session, dir, "model.ckpt", globalStep)}. */
  public String save(Session session, Path dir, long globalStep) {
    return save(session, dir, DEFAULT_PREFIX, globalStep);
  }

  /**
   * Saves the variables to {@code dir/<prefix>-<globalStep>}: one session run in which every
   * device writes its shard in parallel, then (here, in the caller's process) the index, then the
   * {@code checkpoint} file; then deletes the checkpoints beyond {@code maxToKeep}, oldest first.
   * The kept list continues the one in {@code checkpoint}, so a restarted chief keeps rotating.
   * Returns the checkpoint's prefix path. Creates {@code dir} as needed.
   */
  public String save(Session session, Path dir, String prefix, long globalStep) {
    if (prefix.isEmpty() || prefix.contains("/") || prefix.contains("\\") || prefix.contains("\n")) {
      throw new IllegalArgumentException("checkpoint prefix must be a plain file name, got '" + prefix + "'");
    }
    Path absDir = dir.toAbsolutePath().normalize();
    String name = prefix + "-" + globalStep;
    Path checkpoint = absDir.resolve(name);
    try {
      Files.createDirectories(absDir);
    } catch (IOException e) {
      throw StatusException.internal("cannot create checkpoint directory " + absDir + ": " + e, e);
    }
    List<String> files = new ArrayList<>();
    Runner run = session.runner();
    for (int i = 0; i < shards.size(); i++) {
      files.add(name + ".shard-" + i + "-of-" + shards.size() + ".safetensors");
      run.feed(shards.get(i).file(), Tensor.scalar(absDir.resolve(files.get(i)).toString())).addTarget(shards.get(i).save());
    }
    try {
      run.run();
    } catch (RuntimeException e) {
      // Shards some tasks wrote before another failed belong to no index; remove them unless they
      // overwrote a checkpoint of the same name, which its index's checksums now reject anyway.
      if (!Files.exists(CheckpointIndex.indexFile(checkpoint))) {
        delete(checkpoint);
      }
      throw e;
    }
    CheckpointIndex.describe(checkpoint, globalStep, files, shards.stream().map(Shard::device).toList(),
        shards.stream().map(Shard::variables).toList(), slices).write();
    updateCheckpointFile(absDir, name);
    return checkpoint.toString();
  }

  private void updateCheckpointFile(Path dir, String name) {
    LinkedHashSet<String> kept = new LinkedHashSet<>();
    try {
      CheckpointState.read(dir).ifPresent(s -> kept.addAll(s.all()));
    } catch (IOException e) {
      LOG.warn("ignoring the unreadable checkpoint file in {}: {}", dir, e.getMessage());
    }
    kept.remove(name);
    kept.add(name);
    List<String> all = new ArrayList<>(kept);
    int drop = maxToKeep > 0 ? Math.max(0, all.size() - maxToKeep) : 0;
    try {
      new CheckpointState(name, all.subList(drop, all.size())).write(dir);
    } catch (IOException e) {
      throw StatusException.internal("cannot write " + dir.resolve(CheckpointState.FILE) + ": " + e, e);
    }
    for (String old : all.subList(0, drop)) {
      delete(dir.resolve(old));
    }
  }

  /** Deletes a checkpoint no longer listed: its index first, so no index ever names a deleted shard. */
  private static void delete(Path prefix) {
    String base = prefix.getFileName().toString();
    try {
      Files.deleteIfExists(CheckpointIndex.indexFile(prefix));
      try (Stream<Path> files = Files.list(prefix.getParent())) {
        for (Path f : files.filter(f -> f.getFileName().toString().startsWith(base + ".shard-")).toList()) {
          Files.deleteIfExists(f);
        }
      }
    } catch (IOException e) {
      LOG.warn("cannot delete old checkpoint {}: {}", prefix, e.toString());
    }
  }

  /**
   * Restores every variable from the checkpoint {@code prefixPath} ({@code dir/model.ckpt-200}) in
   * one session run. First checks that the checkpoint holds each variable with the graph's dtype
   * and shape (failing with one message naming every missing or different variable) and that its
   * shards are complete; then every device reads its variables' shards and, once all are read and
   * verified, assigns them. A partitioned variable saved with another partitioning (over 2 ps
   * tasks, restored over 3) is re-partitioned: each new part is assembled on its own device from
   * the rows of the saved parts that overlap it ({@link RestorePlan}), reading only those rows.
   */
  public void restore(Session session, Path prefixPath) {
    CheckpointIndex index = CheckpointIndex.read(prefixPath);
    RestorePlan plan = RestorePlan.of(index, variables, slices);
    index.verifyShards();
    if (plan.isDirect()) {
      Runner run = session.runner();
      for (Shard s : shards) {
        String[] files = new String[s.variables().size()];
        for (int j = 0; j < files.length; j++) {
          files[j] = index.dir().resolve(index.variables().get(s.variables().get(j).name()).file()).toString();
        }
        run.feed(s.restoreFiles(), Tensor.of(files, files.length));
      }
      run.addTarget(restoreAll).run();
      return;
    }
    LOG.info("restoring {} onto a different partitioning:\n  {}", index.name(), String.join("\n  ", plan.describe()));
    repartitioned.computeIfAbsent(plan, p -> RepartitionedRestore.build(shards.stream().map(Shard::variables).toList(), p))
        .run(session, index);
  }

  /**
   * The newest complete checkpoint listed in {@code dir/checkpoint}: the one it names as latest, or
   * when that one's index or shards are missing or damaged (a save that crashed, files deleted by
   * hand), the newest complete one among those it keeps. Empty when there is none.
   */
  public static Optional<Path> latestCheckpoint(Path dir) {
    CheckpointState state;
    try {
      Optional<CheckpointState> s = CheckpointState.read(dir);
      if (s.isEmpty()) {
        return Optional.empty();
      }
      state = s.get();
    } catch (IOException e) {
      LOG.warn("no usable checkpoint in {}: {}", dir, e.getMessage());
      return Optional.empty();
    }
    LinkedHashSet<String> candidates = new LinkedHashSet<>();
    candidates.add(state.latest());
    for (int i = state.all().size() - 1; i >= 0; i--) {
      candidates.add(state.all().get(i));
    }
    for (String c : candidates) {
      Path prefix = dir.toAbsolutePath().resolve(c);
      try {
        CheckpointIndex.read(prefix).verifyShards();
        return Optional.of(prefix);
      } catch (StatusException e) {
        LOG.warn("skipping checkpoint {}: {}", c, e.getMessage());
      }
    }
    return Optional.empty();
  }
}
