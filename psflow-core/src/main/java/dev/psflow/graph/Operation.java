package dev.psflow.graph;

import dev.psflow.ops.OpDef;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A node of a {@link Graph}: an op type with its inputs, control inputs, attributes, requested
 * device and inferred output types. Immutable once added to the graph; created only through
 * {@link OperationBuilder}. Thread-safe.
 *
 * <p>Attribute values are plain Java values: {@code Long} (int), {@code Float}, {@code Boolean},
 * {@code String}, {@link DType}, {@link Shape}, {@link Tensor}, {@code long[]} (list(int)) and
 * {@code String[]} (list(string)).
 */
public final class Operation implements Operand {
  private final Graph graph;
  private final int id;
  private final String name;
  private final OpDef def;
  private final List<Output> inputs;
  private final List<Operation> controlInputs;
  private final Map<String, Object> attrs;
  private final String device;
  private final TensorSpec[] outputs;

  Operation(
      Graph graph,
      int id,
      String name,
      OpDef def,
      List<Output> inputs,
      List<Operation> controlInputs,
      Map<String, Object> attrs,
      String device,
      TensorSpec[] outputs) {
    this.graph = graph;
    this.id = id;
    this.name = name;
    this.def = def;
    this.inputs = List.copyOf(inputs);
    this.controlInputs = List.copyOf(controlInputs);
    this.attrs = Collections.unmodifiableMap(attrs);
    this.device = device;
    this.outputs = outputs;
  }

  /** Output 0, so an op with one output can be used as an input directly. */
  @Override
  public Output asOutput() {
    if (outputs.length == 0) {
      throw new IllegalArgumentException("op '" + name + "' (" + type() + ") has no outputs to use as an input");
    }
    return new Output(this, 0);
  }

  @Override
  public Operation op() {
    return this;
  }

  public Graph graph() {
    return graph;
  }

  /** Position in the graph (0 for the first op added); dense, usable as an array index. */
  public int id() {
    return id;
  }

  public String name() {
    return name;
  }

  /** The op type, e.g. {@code "MatMul"}. */
  public String type() {
    return def.type();
  }

  public OpDef def() {
    return def;
  }

  public List<Output> inputs() {
    return inputs;
  }

  /** Input {@code i}; IllegalArgumentException naming the op when it has fewer (a GraphDef node may list too few). */
  public Output input(int i) {
    if (i < 0 || i >= inputs.size()) {
      throw new IllegalArgumentException("op '" + name + "' (" + type() + ") has " + inputs.size() + " inputs, no input " + i);
    }
    return inputs.get(i);
  }

  public int numInputs() {
    return inputs.size();
  }

  public List<Operation> controlInputs() {
    return controlInputs;
  }

  /** The device requested for this op ("" when none), in the canonical form of {@link DeviceSpec}. */
  public String device() {
    return device;
  }

  public int numOutputs() {
    return outputs.length;
  }

  public Output output(int i) {
    if (i < 0 || i >= outputs.length) {
      throw new IndexOutOfBoundsException("op '" + name + "' (" + type() + ") has " + outputs.length + " outputs, asked for " + i);
    }
    return new Output(this, i);
  }

  public DType outputType(int i) {
    return outputs[i].dtype();
  }

  public Shape outputShape(int i) {
    return outputs[i].shape();
  }

  public List<TensorSpec> outputSpecs() {
    return Arrays.asList(outputs.clone());
  }

  public Map<String, Object> attrs() {
    return attrs;
  }

  public boolean hasAttr(String key) {
    return attrs.containsKey(key);
  }

  public Object attr(String key) {
    Object v = attrs.get(key);
    if (v == null) {
      throw new IllegalArgumentException("op '" + name + "' (" + type() + ") has no attr '" + key + "'");
    }
    return v;
  }

  public long attrLong(String key) {
    return (Long) attr(key);
  }

  public int attrInt(String key) {
    return Math.toIntExact(attrLong(key));
  }

  public float attrFloat(String key) {
    return (Float) attr(key);
  }

  public boolean attrBool(String key) {
    return (Boolean) attr(key);
  }

  public boolean attrBool(String key, boolean defaultValue) {
    Object v = attrs.get(key);
    return v == null ? defaultValue : (Boolean) v;
  }

  public String attrString(String key) {
    return (String) attr(key);
  }

  public DType attrType(String key) {
    return (DType) attr(key);
  }

  public Shape attrShape(String key) {
    return (Shape) attr(key);
  }

  public Tensor attrTensor(String key) {
    return (Tensor) attr(key);
  }

  public long[] attrLongs(String key) {
    return ((long[]) attr(key)).clone();
  }

  public String[] attrStrings(String key) {
    return ((String[]) attr(key)).clone();
  }

  /** The op this one must be colocated with (TensorFlow's {@code _class: ["loc:@name"]}), if any. */
  public Optional<String> colocationGroup() {
    Object v = attrs.get(OperationBuilder.COLOCATION_ATTR);
    if (v instanceof String[] groups && groups.length > 0) {
      return Optional.of(groups[0].substring(OperationBuilder.COLOCATION_PREFIX.length()));
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return "<" + name + " " + type() + (device.isEmpty() ? "" : " @" + device) + ">";
  }
}
