package dev.psflow.train;

import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import dev.psflow.ops.io.RestoreV2;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.Shape;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each variable of a graph comes from in a checkpoint: the saved tensors (and rows of them)
 * that make up its value. A variable saved under its own name with the same slice is one whole
 * piece (the common case: {@link #isDirect}). A partition whose slice differs from every saved one
 * (the checkpoint was saved over 2 ps tasks, the graph partitions over 3) is assembled, in row
 * order, from the rows of every saved slice of the same full variable that overlap it, matched
 * through their {@link SaveSliceInfo} as TensorFlow matches {@code full_name}; an unpartitioned
 * variable counts as the one slice of itself, so a table may also go from partitioned to whole or
 * back. Pieces name shards by their position in the index, so checkpoints of the same layout give
 * equal plans. Immutable.
 *
 * @param pieces for each variable, in the saver's order, the pieces to concatenate along axis 0
 */
record RestorePlan(Map<String, List<Piece>> pieces) {
  /**
   * Rows {@code [start, start + count)} of the saved tensor {@code name} (of {@code shape}) in the
   * index's shard {@code shard}; {@code whole} when that is all of it, read without a slice spec.
   */
  record Piece(int shard, String name, Shape shape, long start, long count, boolean whole) {
    /** RestoreV2's {@code shape_and_slices} entry for this piece. */
    String slice() {
      return whole ? "" : RestoreV2.rowsSpec(shape, start, count);
    }
  }

  /** The plan of {@code variables} (with their slice infos) in {@code index}; one status naming every variable that cannot be restored. */
  static RestorePlan of(CheckpointIndex index, List<Variable> variables, Map<String, SaveSliceInfo> slices) {
    Map<String, Integer> shardOf = new LinkedHashMap<>();
    for (int i = 0; i < index.shards().size(); i++) {
      shardOf.put(index.shards().get(i).file(), i);
    }
    Map<String, List<Piece>> pieces = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    boolean differs = false;
    for (Variable v : variables) {
      SaveSliceInfo want = slices.getOrDefault(v.name(), SaveSliceInfo.whole(v.name(), v.shape()));
      CheckpointIndex.Entry same = index.variables().get(v.name());
      if (same != null && same.dtype() != v.dtype()) {
        problems.add(v.name() + " has type " + same.dtype() + " in the checkpoint but " + v.dtype() + " in the graph");
        differs = true;
      } else if (same != null && same.shape().equals(v.shape())
          && (same.slice() == null || !slices.containsKey(v.name()) || same.slice().equals(want))) {
        // the same slice, or one side does not say (a checkpoint from before slice infos): by name, as always
        pieces.put(v.name(), List.of(new Piece(shardOf.getOrDefault(same.file(), -1), v.name(), same.shape(), 0,
            want.rows(), true)));
      } else {
        String problem = assemble(index, v, want, shardOf, pieces);
        if (problem != null) {
          problems.add(problem);
          differs |= !problem.endsWith("is missing");
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new StatusException(differs ? Code.INVALID_ARGUMENT : Code.NOT_FOUND,
          "checkpoint " + index.name() + " does not match the graph: " + String.join("; ", problems));
    }
    return new RestorePlan(pieces);
  }

  /** Every variable is one whole saved tensor of its own name: no re-partitioning. */
  boolean isDirect() {
    return pieces.values().stream().allMatch(p -> p.size() == 1 && p.get(0).whole());
  }

  /**
   * One line per re-partitioned variable, for the log:
   * {@code emb/part_1 <- emb/part_0[4..5] + emb/part_1[0..1]} (rows of the saved tensors, inclusive).
   */
  List<String> describe() {
    List<String> lines = new ArrayList<>();
    pieces.forEach((name, ps) -> {
      if (ps.size() != 1 || !ps.get(0).whole() || !ps.get(0).name().equals(name)) {
        StringBuilder b = new StringBuilder(name).append(" <- ");
        for (int i = 0; i < ps.size(); i++) {
          Piece p = ps.get(i);
          b.append(i == 0 ? "" : " + ").append(p.name()).append('[').append(p.start()).append("..")
              .append(p.start() + p.count() - 1).append(']');
        }
        lines.add(b.toString());
      }
    });
    return lines;
  }

  /** Adds {@code v}'s pieces from the saved slices of its full variable, or returns why it cannot. */
  private static String assemble(CheckpointIndex index, Variable v, SaveSliceInfo want, Map<String, Integer> shardOf,
      Map<String, List<Piece>> pieces) {
    record Saved(String name, CheckpointIndex.Entry entry, SaveSliceInfo slice) {}
    List<Saved> saved = new ArrayList<>();
    index.variables().forEach((name, e) -> {
      SaveSliceInfo s = e.sliceOrWhole(name);
      if (s.fullName().equals(want.fullName())) {
        saved.add(new Saved(name, e, s));
      }
    });
    CheckpointIndex.Entry same = index.variables().get(v.name());
    if (saved.isEmpty()) {
      return same != null
          ? v.name() + " has shape " + same.shape() + " in the checkpoint but " + v.shape() + " in the graph"
          : v.name() + " is missing";
    }
    for (Saved s : saved) {
      boolean plain = s.name().equals(v.name()) && want.fullName().equals(v.name());
      if (plain && !s.slice().fullShape().equals(want.fullShape())) {
        return v.name() + " has shape " + s.entry().shape() + " in the checkpoint but " + v.shape() + " in the graph";
      }
      if (!s.slice().fullShape().equals(want.fullShape()) || s.entry().dtype() != v.dtype()) {
        return want.fullName() + " is " + s.entry().dtype() + " " + s.slice().fullShape() + " in the checkpoint but "
            + v.dtype() + " " + want.fullShape() + " in the graph";
      }
      if (!rowsOnly(s.slice()) || !rowsOnly(want)) {
        return want.fullName() + " is sliced along an axis other than 0, which psflow cannot re-partition";
      }
    }
    saved.sort(Comparator.comparingLong(s -> s.slice().firstRow()));
    long from = want.firstRow();
    long to = from + want.rows();
    List<Piece> out = new ArrayList<>();
    for (Saved s : saved) {
      long lo = Math.max(from, s.slice().firstRow());
      long hi = Math.min(to, s.slice().firstRow() + s.slice().rows());
      if (lo >= hi) {
        continue;
      }
      if (lo > from) {
        break; // a gap: reported below
      }
      boolean whole = lo == s.slice().firstRow() && hi - lo == s.slice().rows();
      out.add(new Piece(shardOf.getOrDefault(s.entry().file(), -1), s.name(), s.entry().shape(), lo - s.slice().firstRow(),
          hi - lo, whole));
      from = hi;
    }
    if (from < to) {
      return "rows " + from + ".." + (to - 1) + " of " + want.fullName() + " (for " + v.name() + ") are in no saved slice";
    }
    pieces.put(v.name(), List.copyOf(out));
    return null;
  }

  /** Partitioned along axis 0 only: whole in every other dimension. */
  private static boolean rowsOnly(SaveSliceInfo s) {
    long[] offset = s.varOffset();
    for (int i = 1; i < offset.length; i++) {
      if (offset[i] != 0 || s.varShape().size(i) != s.fullShape().size(i)) {
        return false;
      }
    }
    return true;
  }
}
