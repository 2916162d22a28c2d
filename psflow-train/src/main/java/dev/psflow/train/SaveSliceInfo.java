package dev.psflow.train;

import dev.psflow.graph.Graph;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.Shape;
import java.util.Arrays;
import java.util.Optional;

/**
 * TensorFlow's {@code Variable.SaveSliceInfo}: which slice of a larger, logical variable one
 * partition holds ({@code full_name full_shape var_offset var_shape}). {@link PartitionedVariable}
 * gives each of its parts one ({@code emb/part_1} holds rows 5..9 of {@code emb} [10,4]), and an
 * optimizer gives each slot of a part the matching slice of the slot's full variable
 * ({@code emb/part_1/Adagrad} of {@code emb/Adagrad}). The {@link Saver} records it in the
 * checkpoint index, so a restore can assemble any other partitioning of the same full variable
 * (a checkpoint saved over 2 ps tasks restores into 3). Only axis 0 is ever partitioned here, so
 * {@code varOffset} is zero past the first dimension. Immutable.
 *
 * <pre>{@code
 * SaveSliceInfo s = SaveSliceInfo.of(part1).orElseThrow();  // emb [10,4] offset [5,0] shape [5,4]
 * s.spec();                                                 // "10 4 5,5:-", TensorFlow's slice spec
 * }</pre>
 *
 * @param fullName the name of the whole variable ("emb")
 * @param fullShape its shape
 * @param varOffset where this part starts in it, per dimension
 * @param varShape this part's shape
 */
public record SaveSliceInfo(String fullName, Shape fullShape, long[] varOffset, Shape varShape) {
  /** The graph collection holding each part's {@link Tagged} slice info. */
  static final String COLLECTION = "save_slice_info";

  /** A variable's slice info, as kept in the graph's {@link #COLLECTION}. */
  record Tagged(String variable, SaveSliceInfo info) {}

  public SaveSliceInfo {
    varOffset = varOffset.clone();
    if (varOffset.length != fullShape.rank() || varShape.rank() != fullShape.rank()) {
      throw new IllegalArgumentException("slice of " + fullName + " " + fullShape + " needs " + fullShape.rank()
          + " offsets and dimensions, got " + Arrays.toString(varOffset) + " and " + varShape);
    }
    for (int i = 0; i < varOffset.length; i++) {
      if (varOffset[i] < 0 || varOffset[i] + varShape.size(i) > fullShape.size(i)) {
        throw new IllegalArgumentException("slice at " + Arrays.toString(varOffset) + " of shape " + varShape
            + " does not fit in " + fullName + " " + fullShape);
      }
    }
  }

  /** A whole variable as the one slice of itself: how an unpartitioned variable takes part in re-partitioning. */
  static SaveSliceInfo whole(String name, Shape shape) {
    return new SaveSliceInfo(name, shape, new long[shape.rank()], shape);
  }

  @Override
  public long[] varOffset() {
    return varOffset.clone();
  }

  /** The first row of the full variable this part holds. */
  long firstRow() {
    return varOffset.length == 0 ? 0 : varOffset[0];
  }

  /** How many rows of the full variable this part holds. */
  long rows() {
    return varShape.rank() == 0 ? 1 : varShape.size(0);
  }

  /** TensorFlow's {@code SaveSliceInfo.spec}: the full shape, then {@code offset,length} per dimension. */
  public String spec() {
    StringBuilder b = new StringBuilder();
    for (long d : fullShape.toArray()) {
      b.append(d).append(' ');
    }
    for (int i = 0; i < varOffset.length; i++) {
      b.append(i == 0 ? "" : ":").append(varOffset[i]).append(',').append(varShape.size(i));
    }
    return b.toString().trim();
  }

  /** Records that {@code v} holds this slice (graph-construction time, before a Saver is built). */
  void attachTo(Variable v) {
    v.handle().op().graph().addToCollection(COLLECTION, new Tagged(v.name(), this));
  }

  /** The slice info attached to {@code v}, if it is a partition (or a partition's slot). */
  public static Optional<SaveSliceInfo> of(Variable v) {
    return of(v.handle().op().graph(), v.name());
  }

  static Optional<SaveSliceInfo> of(Graph g, String variable) {
    for (Tagged t : g.collection(COLLECTION, Tagged.class)) {
      if (t.variable().equals(variable)) {
        return Optional.of(t.info());
      }
    }
    return Optional.empty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SaveSliceInfo s && fullName.equals(s.fullName) && fullShape.equals(s.fullShape)
        && Arrays.equals(varOffset, s.varOffset) && varShape.equals(s.varShape);
  }

  @Override
  public int hashCode() {
    return fullName.hashCode() * 31 + Arrays.hashCode(varOffset);
  }

  @Override
  public String toString() {
    return fullName + " " + spec();
  }
}
