package dev.psflow.graph;

import dev.psflow.ops.OpDef;
import java.util.ArrayList;
import java.util.List;

/**
 * Where new ops go: the graph, a name prefix, the device (string or function) to request, control
 * dependencies and a colocation target. Immutable apart from the one-shot name of {@link #withName}
 * (resolved once, under a lock); each {@code with*} returns a new scope, so a scope can be shared
 * freely between threads.
 *
 * <p>A name given by {@link #withName} goes to one op: the op a facade method returns. The other
 * ops such a method builds (constants for axes and shapes, the parts of a composite) are built in
 * {@link #helperScope()}, under that name, as TensorFlow builds an op's inputs inside
 * {@code name_scope(name)}: {@code tf.withName("loss").reduceMean(x)} makes {@code loss/Const} and
 * {@code loss}.
 *
 * <pre>{@code
 * Scope s = Scope.root(graph).withSubScope("layer1").withDevice("/job:worker/task:0");
 * Operation op = s.opBuilder(Relu.DEF).addInput(x).build();   // named "layer1/Relu"
 * }</pre>
 */
public final class Scope {
  private final Graph graph;
  private final String prefix; // "" or "a/b/"
  private final PendingName opName; // the one-shot name of withName, or null
  private final List<DeviceFunction> devices;
  private final List<Operation> controlDeps;
  private final Operation colocateWith;

  private Scope(Graph graph, String prefix, PendingName opName, List<DeviceFunction> devices,
      List<Operation> controlDeps, Operation colocateWith) {
    this.graph = graph;
    this.prefix = prefix;
    this.opName = opName;
    this.devices = devices;
    this.controlDeps = controlDeps;
    this.colocateWith = colocateWith;
  }

  public static Scope root(Graph graph) {
    return new Scope(graph, "", null, List.of(), List.of(), null);
  }

  public Graph graph() {
    return graph;
  }

  /**
   * The next op built is named {@code name} (under the current prefix, made unique if taken); ops
   * built in {@link #helperScope()} go under that name. Later ops built in this scope get the name
   * made unique again ({@code name_1}, ...).
   */
  public Scope withName(String name) {
    validateName(name);
    return new Scope(graph, prefix, new PendingName(prefix + name), devices, controlDeps, colocateWith);
  }

  /** This scope if it has a name ({@link #withName}), else {@code withName(name)}: TensorFlow's default_name. */
  public Scope withDefaultName(String name) {
    return opName != null ? this : withName(name);
  }

  /** Whether {@link #withName} gave this scope a name for the op a facade method returns. */
  public boolean hasName() {
    return opName != null;
  }

  /**
   * Where a facade method builds the ops other than the one it returns: this scope when it has no
   * name, else a scope under the (uniqued) name, {@code name/}, with the same devices, control
   * dependencies and colocation. Helpers built before or after the named op land under the name
   * that op takes.
   */
  public Scope helperScope() {
    if (opName == null) {
      return this;
    }
    return new Scope(graph, opName.resolve(graph) + "/", null, devices, controlDeps, colocateWith);
  }

  /**
   * The scope a composite (several ops, one result) builds in: this scope when it has a name, so the
   * result takes it and the parts go under it ({@link #helperScope()}); else a new sub-scope
   * {@code defaultSubScope/} holding all of the composite's ops.
   */
  public Scope forComposite(String defaultSubScope) {
    return opName != null ? this : withSubScope(defaultSubScope);
  }

  /** Ops built in the returned scope are named {@code prefix/name/...}; the sub-scope name is made unique. */
  public Scope withSubScope(String name) {
    validateName(name);
    String unique = graph.uniqueName(prefix + name);
    return new Scope(graph, unique + "/", null, devices, controlDeps, colocateWith);
  }

  /** Requests a device; nested requests merge, inner parts winning (TensorFlow's {@code tf.device}). */
  public Scope withDevice(String device) {
    DeviceSpec spec = DeviceSpec.parse(device); // fail fast on a malformed name
    List<DeviceFunction> d = new ArrayList<>(devices);
    d.add(op -> DeviceSpec.parse(op.device()).mergeFrom(spec).toString());
    return new Scope(graph, prefix, opName, List.copyOf(d), controlDeps, colocateWith);
  }

  /** Places new ops by a device function (e.g. a replica device setter), applied after the outer requests. */
  public Scope withDeviceFunction(DeviceFunction f) {
    List<DeviceFunction> d = new ArrayList<>(devices);
    d.add(f);
    return new Scope(graph, prefix, opName, List.copyOf(d), controlDeps, colocateWith);
  }

  /** Ops built in the returned scope run only after {@code ops} (TensorFlow's {@code control_dependencies}). */
  public Scope withControlDependencies(Iterable<? extends Operand> ops) {
    List<Operation> deps = new ArrayList<>(controlDeps);
    for (Operand o : ops) {
      deps.add(o.op());
    }
    return new Scope(graph, prefix, opName, devices, List.copyOf(deps), colocateWith);
  }

  /** Ops built in the returned scope are colocated with {@code op} (same device as it). */
  public Scope withColocation(Operation op) {
    return new Scope(graph, prefix, opName, devices, controlDeps, op);
  }

  /** The full name the next op of this type would get, before uniquing. */
  public String makeOpName(String defaultName) {
    return opName != null ? opName.base : prefix + defaultName;
  }

  /** A builder for an op of this type, named, placed and ordered by this scope. */
  public OperationBuilder opBuilder(OpDef def) {
    String claimed = opName != null ? opName.claim(graph) : null;
    if (claimed != null) {
      // Already made unique (and reserved) by resolve(): the name the helpers went under.
      return configure(graph.opBuilder(def, claimed).exactName());
    }
    return configure(graph.opBuilder(def, makeOpName(def.type())));
  }

  /**
   * A builder for an op named exactly {@code fullName} (no prefix added, not made unique), placed and
   * ordered by this scope; for ops that take the name of the sub-scope they open, as a variable's
   * handle {@code hid_w} inside scope {@code hid_w/}.
   */
  public OperationBuilder opBuilderExact(OpDef def, String fullName) {
    return configure(graph.opBuilder(def, fullName).exactName());
  }

  private OperationBuilder configure(OperationBuilder b) {
    for (Operation c : controlDeps) {
      b.addControlInput(c);
    }
    if (colocateWith != null) {
      // As tf.colocate_with(ignore_existing=True): the colocated op's device wins over any device scope.
      b.colocateWith(colocateWith);
    } else {
      b.setDeviceFunctions(devices);
    }
    return b;
  }

  /** The device functions new ops are placed by, outermost first (a library looks for its replica device setter). */
  public List<DeviceFunction> deviceFunctions() {
    return devices;
  }

  /** The name prefix ("" at the root, else ending in '/'). */
  public String prefix() {
    return prefix;
  }

  private static void validateName(String name) {
    if (name == null || name.isEmpty() || !name.matches("[A-Za-z0-9.][A-Za-z0-9_.\\-/]*")) {
      throw new IllegalArgumentException(
          "invalid op name '" + name + "': use letters, digits, '_', '.', '-' and '/', starting with a letter, digit or '.'");
    }
  }

  /**
   * A name given by {@link #withName}, shared by the scopes derived from that one: made unique once
   * (by the named op or by the first helper, whichever comes first) so the op and its helpers agree
   * on it; only the first op built takes it.
   */
  private static final class PendingName {
    final String base; // full name, prefix included, before uniquing
    private String resolved;
    private boolean claimed;

    PendingName(String base) {
      this.base = base;
    }

    synchronized String resolve(Graph graph) {
      if (resolved == null) {
        resolved = graph.uniqueName(base);
      }
      return resolved;
    }

    /** The resolved name for the first op built with it; null for any later one (made unique anew). */
    synchronized String claim(Graph graph) {
      if (claimed) {
        return null;
      }
      claimed = true;
      return resolve(graph);
    }
  }
}
