package dev.psflow.tensor;

/**
 * The element type of a tensor, with TensorFlow's names and wire numbers.
 *
 * <p>{@code RESOURCE} is the type of a handle to a resource (a variable, a queue) that lives in a
 * task's resource manager; its tensors hold {@link ResourceHandle}s.
 */
public enum DType {
  FLOAT32(1, 4, "float"),
  FLOAT64(2, 8, "double"),
  INT32(3, 4, "int32"),
  STRING(7, -1, "string"),
  INT64(9, 8, "int64"),
  BOOL(10, 1, "bool"),
  RESOURCE(20, -1, "resource");

  private final int number;
  private final int byteSize;
  private final String tfName;

  DType(int number, int byteSize, String tfName) {
    this.number = number;
    this.byteSize = byteSize;
    this.tfName = tfName;
  }

  /** TensorFlow's DataType enum number (DT_FLOAT = 1, ...), used on the wire and in GraphDefs. */
  public int number() {
    return number;
  }

  /** Bytes per element, or -1 for variable-size types. */
  public int byteSize() {
    return byteSize;
  }

  public boolean isFloating() {
    return this == FLOAT32 || this == FLOAT64;
  }

  public boolean isInteger() {
    return this == INT32 || this == INT64;
  }

  public boolean isNumeric() {
    return isFloating() || isInteger();
  }

  /** TensorFlow's short name ("float", "int64"), as users see it in error messages. */
  public String tfName() {
    return tfName;
  }

  /** TensorFlow's DataType number → DType; values() copies the array on every call, so look up a table. */
  private static final DType[] BY_NUMBER = byNumber();

  private static DType[] byNumber() {
    int max = 0;
    for (DType t : values()) {
      max = Math.max(max, t.number);
    }
    DType[] table = new DType[max + 1];
    for (DType t : values()) {
      table[t.number] = t;
    }
    return table;
  }

  public static DType fromNumber(int number) {
    DType t = number >= 0 && number < BY_NUMBER.length ? BY_NUMBER[number] : null;
    if (t == null) {
      throw new IllegalArgumentException("unknown dtype number " + number);
    }
    return t;
  }

  @Override
  public String toString() {
    return tfName;
  }
}
