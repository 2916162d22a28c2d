package dev.psflow.ops.state;

import dev.psflow.graph.Graph;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.util.Set;
import java.util.function.Function;

/**
 * A resource variable, built as TensorFlow builds one: a {@code VarHandleOp} named after the
 * variable (placed by the device scope — a replica device setter sends it to a ps task), an
 * initializer {@code name/Assign} and one read {@code name/read}, both colocated with the handle.
 * Used as an operand, a variable is its read, so each step pulls its value once.
 *
 * <p>Immutable and thread-safe. Registered in the graph's {@link #GLOBAL_VARIABLES} collection,
 * and {@link #TRAINABLE_VARIABLES} when trainable; a local variable ({@link #createLocal}: state of
 * one worker, such as the sync replicas' local step) only in {@link #LOCAL_VARIABLES}, so the
 * global initializer and the ready op leave it alone.
 *
 * <pre>{@code
 * Variable w = tf.variable("hid_w", tf.truncatedNormal(Shape.of(784, 100), DType.FLOAT32, 1f / 28));
 * Output h = tf.matMul(x, w);
 * session.runner().addTarget(tf.globalVariablesInitializer()).run();
 * }</pre>
 */
public final class Variable implements Operand {
  public static final String GLOBAL_VARIABLES = "variables";
  public static final String TRAINABLE_VARIABLES = "trainable_variables";
  public static final String LOCAL_VARIABLES = "local_variables";

  private final String name;
  private final Output handle;
  private final Operation initializer;
  private final Output value;
  private final Output initialValue;
  private final boolean trainable;
  private final boolean local;

  private Variable(String name, Output handle, Operation initializer, Output value, Output initialValue, boolean trainable,
      boolean local) {
    this.name = name;
    this.handle = handle;
    this.initializer = initializer;
    this.value = value;
    this.initialValue = initialValue;
    this.trainable = trainable;
    this.local = local;
  }

  /** Creates the variable {@code name} (made unique under the scope) with the given initial value. */
  public static Variable create(Scope scope, String name, Operand initialValue, boolean trainable) {
    return build(scope, name, initialValue, trainable, false);
  }

  /**
   * Creates the variable {@code name} of {@code shape} and {@code dtype} whose initial value
   * {@code initializer} builds in a scope colocated with the variable's handle (TensorFlow's
   * variables with a callable initializer, {@code tf.get_variable(initializer=...)}): under a
   * replica device setter the initializer then runs on the variable's ps task, so initializing a
   * large variable moves nothing over the wire. The initializer must give {@code shape} and {@code dtype}.
   */
  public static Variable create(Scope scope, String name, Shape shape, DType dtype,
      Function<Scope, ? extends Operand> initializer, boolean trainable) {
    if (!shape.isFullyDefined()) {
      throw new IllegalArgumentException("variable " + name + ": needs a fully defined shape, got " + shape);
    }
    Scope vs = scope.withSubScope(name);
    Operation handleOp = handle(vs, shape, dtype);
    Output init = initializer.apply(vs.withColocation(handleOp).withSubScope("Initializer")).asOutput();
    if (!init.shape().isCompatibleWith(shape) || init.dtype() != dtype) {
      throw new IllegalArgumentException("variable " + handleOp.name() + ": the initializer gave " + init.dtype() + " "
          + init.shape() + ", expected " + dtype + " " + shape);
    }
    return finish(vs, handleOp, init, trainable, false);
  }

  /**
   * Creates a local variable (TensorFlow's {@code LOCAL_VARIABLES}): non-trainable, outside the
   * global variables, initialized by {@link StateOps#localVariablesInitializer}. Placed by the
   * scope like any variable: colocate it with an op on the worker to keep it there.
   */
  public static Variable createLocal(Scope scope, String name, Operand initialValue) {
    return build(scope, name, initialValue, false, true);
  }

  private static Variable build(Scope scope, String name, Operand initialValue, boolean trainable, boolean local) {
    Output init = initialValue.asOutput();
    Shape shape = init.shape();
    if (!shape.isFullyDefined()) {
      throw new IllegalArgumentException(
          "variable " + name + ": the initial value needs a fully defined shape, got " + shape);
    }
    Scope vs = scope.withSubScope(name);
    return finish(vs, handle(vs, shape, init.dtype()), init, trainable, local);
  }

  /** The VarHandleOp named after the variable scope {@code vs} ("hid_w/" gives "hid_w"). */
  private static Operation handle(Scope vs, Shape shape, DType dtype) {
    String fullName = vs.prefix().substring(0, vs.prefix().length() - 1);
    return vs.opBuilderExact(VarHandleOp.DEF, fullName)
        .setAttr("container", "")
        .setAttr("shared_name", fullName)
        .setAttr("dtype", dtype)
        .setAttr("shape", shape)
        .build();
  }

  private static Variable finish(Scope vs, Operation handleOp, Output init, boolean trainable, boolean local) {
    Scope colocated = vs.withColocation(handleOp);
    Operation assign = makesFreshTensor(init)
        ? AssignVariableOp.createTakingInput(colocated.withName("Assign"), handleOp.output(0), init)
        : AssignVariableOp.create(colocated.withName("Assign"), handleOp.output(0), init);
    Output read = ReadVariableOp.create(colocated.withName("read"), handleOp.output(0), init.dtype());
    Variable v = new Variable(handleOp.name(), handleOp.output(0), assign, read, init, trainable, local);
    Graph g = vs.graph();
    if (local) {
      g.addToCollection(LOCAL_VARIABLES, v);
      return v;
    }
    g.addToCollection(GLOBAL_VARIABLES, v);
    if (trainable) {
      g.addToCollection(TRAINABLE_VARIABLES, v);
    }
    return v;
  }

  /** Ops whose kernels draw or fill a new tensor on every run: nothing else holds what they give. */
  private static final Set<String> FRESH_OUTPUT_OPS = Set.of("RandomUniform", "RandomStandardNormal", "TruncatedNormal", "Fill");

  /**
   * Whether the initializer's value is a tensor made for this assign alone, which the variable may
   * then keep as its storage instead of copying ({@link AssignVariableOp}'s {@code _take_input}):
   * a ps initializing a 1 GB shard from a random or filled initializer then holds 1 GB, not 2. A
   * constant, a feed or a computed value that other ops read is copied as before.
   */
  private static boolean makesFreshTensor(Output init) {
    return FRESH_OUTPUT_OPS.contains(init.op().type());
  }

  /** The variable's name, which is also its VarHandleOp's name and shared_name. */
  public String name() {
    return name;
  }

  /** The resource handle (DType.RESOURCE), input of the assign/apply ops. */
  public Output handle() {
    return handle;
  }

  /** Assigns the initial value. */
  public Operation initializer() {
    return initializer;
  }

  /** The variable's value for this step (its one ReadVariableOp). */
  public Output value() {
    return value;
  }

  public Output initialValue() {
    return initialValue;
  }

  public boolean isTrainable() {
    return trainable;
  }

  /** True for a local variable (one per worker, not in the global variables). */
  public boolean isLocal() {
    return local;
  }

  @Override
  public Output asOutput() {
    return value;
  }

  @Override
  public DType dtype() {
    return value.dtype();
  }

  @Override
  public Shape shape() {
    return handle.op().attrShape("shape");
  }

  /** The device the variable was placed on by its scope ("" when none was requested). */
  public String device() {
    return handle.op().device();
  }

  @Override
  public String toString() {
    return "<Variable " + name + " " + dtype() + " " + shape() + (device().isEmpty() ? "" : " @" + device()) + ">";
  }
}
