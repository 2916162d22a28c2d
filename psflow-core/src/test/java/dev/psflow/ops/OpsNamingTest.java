package dev.psflow.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.array.StridedSlice;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * {@code tf.withName("given").anyMethod(...)} names the op the method returns {@code given}; the
 * other ops it builds (constants for axes and shapes, parts of composites) go under
 * {@code given/}, as TensorFlow builds an op's inputs inside {@code name_scope(name)}.
 *
 * <p>The walk covers every public method of {@link Ops} (its own and those of the family
 * interfaces it mixes in). A method added to the facade needs arguments here only when the
 * defaults by parameter type ({@link Fixture#byType}) do not suit it ({@link #ARGUMENTS}).
 */
class OpsNamingTest {
  private static final String GIVEN = "given";

  /** Methods that build no op, each with the reason. */
  private static final Map<String, String> BUILD_NO_OP = Map.ofEntries(
      Map.entry("create(Graph)", "static factory of the facade"),
      Map.entry("create(Scope)", "static factory of the facade"),
      Map.entry("scope()", "accessor"),
      Map.entry("tf()", "accessor (the facade for helper ops)"),
      Map.entry("graph()", "accessor"),
      Map.entry("withName(String)", "returns a facade, builds nothing"),
      Map.entry("withSubScope(String)", "returns a facade, builds nothing"),
      Map.entry("withDevice(String)", "returns a facade, builds nothing"),
      Map.entry("withDeviceFunction(DeviceFunction)", "returns a facade, builds nothing"),
      Map.entry("withControlDependencies(Operand[])", "returns a facade, builds nothing"),
      Map.entry("withControlDependencies(Iterable)", "returns a facade, builds nothing"),
      Map.entry("withColocation(Operation)", "returns a facade, builds nothing"),
      Map.entry("globalVariables()", "reads a graph collection"),
      Map.entry("localVariables()", "reads a graph collection"),
      Map.entry("trainableVariables()", "reads a graph collection"));

  /**
   * Methods that take the name of what they build as an argument (a variable is named by it, as
   * {@code tf.Variable(init, name=...)}): the pending name must not be taken by any of their ops.
   */
  private static final Set<String> NAMED_BY_ARGUMENT = Set.of("variable(String,Operand)",
      "variable(String,Operand,boolean)", "variable(String,Tensor,boolean)", "localVariable(String,Operand)");

  /** Arguments for the methods the defaults by type do not suit. */
  private static final Map<String, Function<Fixture, Object[]>> ARGUMENTS = new TreeMap<>();

  static {
    arguments("reshape(Operand,int[])", f -> new Object[] {f.x(), new int[] {4}});
    arguments("reshape(Operand,Operand)", f -> new Object[] {f.x(), f.ints(4)});
    arguments("shape(Operand,DType)", f -> new Object[] {f.x(), DType.INT64});
    arguments("range(Operand,Operand,Operand)", f -> new Object[] {f.tf.constant(0), f.tf.constant(3), f.tf.constant(1)});
    arguments("range(int,int,int)", f -> new Object[] {0, 3, 1});
    arguments("expandDims(Operand,Operand)", f -> new Object[] {f.x(), f.tf.constant(0)});
    arguments("transpose(Operand,Operand)", f -> new Object[] {f.x(), f.ints(1, 0)});
    arguments("concat(List,Operand)", f -> new Object[] {List.of(f.x(), f.x()), f.tf.constant(0)});
    arguments("slice(Operand,int[],int[])", f -> new Object[] {f.x(), new int[] {0, 0}, new int[] {1, 2}});
    arguments("slice(Operand,Operand,Operand)", f -> new Object[] {f.x(), f.ints(0, 0), f.ints(1, 2)});
    arguments("pad(Operand,Operand)", f -> new Object[] {f.x(), f.tf.constant(new int[] {1, 0, 0, 1}, 2, 2)});
    arguments("fill(Operand,Operand)", f -> new Object[] {f.ints(2, 2), f.scalar()});
    arguments("tile(Operand,int[])", f -> new Object[] {f.x(), new int[] {1, 2}});
    arguments("tile(Operand,Operand)", f -> new Object[] {f.x(), f.ints(1, 2)});
    arguments("oneHot(Operand,int)", f -> new Object[] {f.ints(0, 1), 3});
    arguments("oneHot(Operand,Operand,Operand,Operand,int)",
        f -> new Object[] {f.ints(0, 1), f.tf.constant(3), f.tf.constant(1f), f.tf.constant(0f), -1});
    arguments("gather(Operand,Operand)", f -> new Object[] {f.x(), f.ints(1)});
    arguments("gather(Operand,Operand,int)", f -> new Object[] {f.x(), f.ints(1), 1});
    arguments("unsortedSegmentSum(Operand,Operand,Operand)", f -> new Object[] {f.x(), f.ints(0, 1), f.tf.constant(2)});
    arguments("unsortedSegmentSum(Operand,Operand,int)", f -> new Object[] {f.x(), f.ints(0, 1), 2});
    arguments("broadcastTo(Operand,Operand)", f -> new Object[] {f.x(), f.ints(3, 2, 2)});
    arguments("broadcastTo(Operand,int[])", f -> new Object[] {f.x(), new int[] {3, 2, 2}});
    arguments("concatOffset(Operand,List)", f -> new Object[] {f.tf.constant(0), List.of(f.ints(2, 2), f.ints(2, 3))});
    arguments("saveV2(Operand,List,List)", f -> new Object[] {f.file(), List.of("a"), List.of(f.x())});
    arguments("restoreV2(Operand,List,List)", f -> new Object[] {f.file(), List.of("a"), List.of(DType.FLOAT32)});
    arguments("select(Operand,Operand,Operand)", f -> new Object[] {f.tf.less(f.x(), f.x()), f.x(), f.x()});
    arguments("clipByValue(Operand,Operand,Operand)", f -> new Object[] {f.x(), f.scalar(), f.scalar()});
    arguments("cast(Operand,DType)", f -> new Object[] {f.x(), DType.INT32});
    for (String reduce : List.of("reduceSum", "reduceMean", "reduceMax", "reduceMin")) {
      arguments(reduce + "(Operand,Operand,boolean)", f -> new Object[] {f.x(), f.ints(0), false});
    }
    for (String arg : List.of("argMax", "argMin")) {
      arguments(arg + "(Operand,Operand,DType)", f -> new Object[] {f.x(), f.tf.constant(0), DType.INT64});
    }
    arguments("biasAdd(Operand,Operand)", f -> new Object[] {f.x(), f.row()});
    arguments("xwPlusB(Operand,Operand,Operand)", f -> new Object[] {f.x(), f.x(), f.row()});
    arguments("sparseSoftmaxCrossEntropyWithLogits(Operand,Operand)", f -> new Object[] {f.ints(0, 1), f.x()});
    for (String random : List.of("randomUniform", "randomStandardNormal", "truncatedNormal")) {
      arguments(random + "(Operand,DType)", f -> new Object[] {f.ints(2, 2), DType.FLOAT32});
      arguments(random + "(Operand,DType,long)", f -> new Object[] {f.ints(2, 2), DType.FLOAT32, 7L});
    }
    queueAndAccumulatorArguments();
    trainingArguments();
    embeddingArguments();
  }

  private static void embeddingArguments() {
    for (String logical : List.of("logicalAnd", "logicalOr")) {
      arguments(logical + "(Operand,Operand)", f -> new Object[] {f.tf.less(f.x(), f.x()), f.tf.less(f.x(), f.x())});
    }
    arguments("logicalNot(Operand)", f -> new Object[] {f.tf.less(f.x(), f.x())});
    arguments("stridedSlice(Operand,Operand,Operand,Operand,Masks)",
        f -> new Object[] {f.x(), f.ints(0, 0), f.ints(1, 2), f.ints(1, 1), StridedSlice.Masks.NONE});
    arguments("stridedSlice(Operand,int[],int[],int[],Masks)",
        f -> new Object[] {f.x(), new int[] {0, 0}, new int[] {1, 2}, new int[] {1, 1}, StridedSlice.Masks.NONE});
    arguments("dynamicPartition(Operand,Operand,int)", f -> new Object[] {f.x(), f.ints(0, 1), 2});
    arguments("dynamicStitch(List,List)", f -> new Object[] {List.of(f.ints(1, 0)), List.of(f.x())});
    arguments("parallelDynamicStitch(List,List)", f -> new Object[] {List.of(f.ints(1, 0)), List.of(f.x())});
    arguments("unique(Operand,DType)", f -> new Object[] {f.ints(3, 1, 3), DType.INT32});
    arguments("unique(Operand)", f -> new Object[] {f.ints(3, 1, 3)});
    arguments("segmentSum(Operand,Operand)", f -> new Object[] {f.x(), f.ints(0, 0)});
    for (String sparse : List.of("sparseSegmentSum", "sparseSegmentMean", "sparseSegmentSqrtN")) {
      arguments(sparse + "(Operand,Operand,Operand)", f -> new Object[] {f.x(), f.ints(0, 1), f.ints(0, 0)});
    }
    arguments("resourceGather(Variable,Operand)", f -> new Object[] {f.var(), f.ints(1)});
  }

  private static void queueAndAccumulatorArguments() {
    arguments("fifoQueue(List,List,int,String)",
        f -> new Object[] {List.of(DType.FLOAT32), List.of(Shape.of(2)), -1, "q"});
    arguments("queueEnqueue(Output,List)", f -> new Object[] {f.queue(), List.of(f.row())});
    arguments("queueEnqueueMany(Output,List)", f -> new Object[] {f.queue(), List.of(f.x())});
    arguments("queueDequeue(Output,List)", f -> new Object[] {f.queue(), List.of(DType.FLOAT32)});
    arguments("queueDequeueMany(Output,Operand,List)", f -> new Object[] {f.queue(), f.tf.constant(2), List.of(DType.FLOAT32)});
    arguments("queueSize(Output)", f -> new Object[] {f.queue()});
    arguments("queueClose(Output,boolean)", f -> new Object[] {f.queue(), false});
    arguments("accumulatorApplyGradient(Output,Operand,Operand)", f -> new Object[] {f.accumulator(), f.tf.constant(0L), f.x()});
    arguments("sparseAccumulatorApplyGradient(Output,Operand,IndexedSlices)",
        f -> new Object[] {f.sparseAccumulator(), f.tf.constant(0L), f.slices()});
    arguments("accumulatorTakeGradient(Output,Operand,DType)", f -> new Object[] {f.accumulator(), f.tf.constant(1), DType.FLOAT32});
    arguments("sparseAccumulatorTakeGradient(Output,Operand,DType)",
        f -> new Object[] {f.sparseAccumulator(), f.tf.constant(1), DType.FLOAT32});
    arguments("accumulatorNumAccumulated(Output)", f -> new Object[] {f.accumulator()});
    arguments("accumulatorSetGlobalStep(Output,Operand)", f -> new Object[] {f.accumulator(), f.tf.constant(1L)});
    arguments("accumulatorNumDropped(Output)", f -> new Object[] {f.accumulator()});
  }

  private static void trainingArguments() {
    arguments("resourceApplyGradientDescent(Variable,Operand,Operand,boolean)",
        f -> new Object[] {f.var(), f.scalar(), f.x(), false});
    arguments("resourceApplyMomentum(Variable,Variable,Operand,Operand,Operand,boolean,boolean)",
        f -> new Object[] {f.var(), f.var(), f.scalar(), f.x(), f.scalar(), false, false});
    arguments("resourceSparseApplyMomentum(Variable,Variable,Operand,Operand,Operand,Operand,boolean,boolean)",
        f -> new Object[] {f.var(), f.var(), f.scalar(), f.rows(), f.ints(1), f.scalar(), false, false});
    arguments("resourceApplyAdagrad(Variable,Variable,Operand,Operand,boolean)",
        f -> new Object[] {f.var(), f.var(), f.scalar(), f.x(), false});
    arguments("resourceSparseApplyAdagrad(Variable,Variable,Operand,Operand,Operand,boolean)",
        f -> new Object[] {f.var(), f.var(), f.scalar(), f.rows(), f.ints(1), false});
    arguments("resourceApplyAdam(Variable,Variable,Variable,Operand,Operand,Operand,Operand,Operand,Operand,Operand,"
        + "boolean,boolean)", f -> new Object[] {f.var(), f.var(), f.var(), f.scalar(), f.scalar(), f.scalar(),
            f.scalar(), f.scalar(), f.scalar(), f.x(), false, false});
    arguments("resourceSparseApplyAdam(Variable,Variable,Variable,Operand,Operand,Operand,Operand,Operand,Operand,"
        + "Operand,Operand,boolean)", f -> new Object[] {f.var(), f.var(), f.var(), f.scalar(), f.scalar(),
            f.scalar(), f.scalar(), f.scalar(), f.scalar(), f.rows(), f.ints(1), false});
    arguments("resourceApplyRmsProp(Variable,Variable,Variable,Operand,Operand,Operand,Operand,Operand,boolean)",
        f -> new Object[] {f.var(), f.var(), f.var(), f.scalar(), f.scalar(), f.scalar(), f.scalar(), f.x(), false});
    arguments("resourceSparseApplyRmsProp(Variable,Variable,Variable,Operand,Operand,Operand,Operand,Operand,Operand,"
        + "boolean)", f -> new Object[] {f.var(), f.var(), f.var(), f.scalar(), f.scalar(), f.scalar(), f.scalar(),
            f.rows(), f.ints(1), false});
    arguments("resourceScatterAdd(Variable,Operand,Operand)", f -> new Object[] {f.var(), f.ints(1), f.rows()});
    arguments("resourceScatterSub(Variable,Operand,Operand)", f -> new Object[] {f.var(), f.ints(1), f.rows()});
  }

  private static void arguments(String signature, Function<Fixture, Object[]> args) {
    ARGUMENTS.put(signature, args);
  }

  @TestFactory
  Stream<DynamicTest> everyFacadeMethodGivesThePendingNameToTheOpItReturns() {
    return facadeMethods().stream()
        .filter(m -> !BUILD_NO_OP.containsKey(signature(m)))
        .map(m -> DynamicTest.dynamicTest(signature(m), () -> checkNaming(m)));
  }

  @Test
  void theSkipListsNameOnlyMethodsOfTheFacade() {
    Set<String> all = facadeMethods().stream().map(OpsNamingTest::signature).collect(Collectors.toSet());
    assertThat(all).containsAll(BUILD_NO_OP.keySet()).containsAll(NAMED_BY_ARGUMENT).containsAll(ARGUMENTS.keySet());
  }

  @Test
  void reduceMeanByNameFetchesTheMean() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output x = tf.constant(new float[] {1, 2, 3, 6}, 2, 2);
    Output loss = tf.withName("loss").reduceMean(x);

    assertThat(loss.op().name()).isEqualTo("loss");
    assertThat(g.requireOperation("loss/Const").type()).isEqualTo("Const"); // the axes [0, 1]
    assertThat(fetch(g, "loss:0")).isEqualTo(Tensor.scalar(3f));
  }

  @Test
  void reduceSumByNameFetchesTheSumAlongTheGivenAxis() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output x = tf.constant(new float[] {1, 2, 3, 6}, 2, 2);
    tf.withName("loss").reduceSum(x, 1);

    assertThat(fetch(g, "loss:0")).isEqualTo(Tensor.of(new float[] {3, 9}, 2));
  }

  @Test
  void argMaxByNameFetchesTheIndices() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output x = tf.constant(new float[] {1, 7, 3, 6, 2, 0}, 2, 3);
    tf.withName("loss").argMax(x, 1);

    assertThat(fetch(g, "loss:0")).isEqualTo(Tensor.of(new long[] {1, 0}, 2));
  }

  @Test
  void aReducedShapeOfUnknownRankBuildsItsRangeUnderTheName() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output x = tf.withName("x").placeholder(DType.FLOAT32);
    tf.withName("loss").reduceSum(x);

    assertThat(g.requireOperation("loss/Range").type()).isEqualTo("Range");
    try (Session s = Session.open(g)) {
      Tensor sum = s.runner().feed("x", Tensor.of(new float[] {1, 2, 3, 4}, 2, 2)).fetch("loss:0").run().get(0);
      assertThat(sum).isEqualTo(Tensor.scalar(10f));
    }
  }

  @Test
  void aNameUsedTwiceIsMadeUniqueWithItsHelpers() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output x = tf.constant(new float[] {1, 2, 3, 6}, 2, 2);
    tf.withName("loss").reduceMean(x);
    Output second = tf.withName("loss").reduceMean(x, 0);

    assertThat(second.op().name()).isEqualTo("loss_1");
    assertThat(second.op().input(1).op().name()).isEqualTo("loss_1/Const");
    assertThat(fetch(g, "loss_1:0")).isEqualTo(Tensor.of(new float[] {2, 4}, 2));
  }

  @Test
  void withoutANameHelpersKeepTheirOwnNames() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output mean = tf.reduceMean(tf.constant(new float[] {1, 2}, 2));

    assertThat(mean.op().name()).isEqualTo("Mean");
    assertThat(mean.op().input(1).op().name()).isEqualTo("Const_1");
  }

  @Test
  void aNamedScopeReusedForASecondOpNamesItUniquely() {
    Graph g = new Graph();
    Ops named = Ops.create(g).withName("c");
    Output first = named.constant(1f);
    Output second = named.constant(2f);

    assertThat(first.op().name()).isEqualTo("c");
    assertThat(second.op().name()).isEqualTo("c_1");
  }

  @Test
  void aNamedRandomCompositeNamesItsSumAsTensorFlowDoes() {
    Graph g = new Graph();
    Output w = Ops.create(g).withName("w_init").truncatedNormal(Shape.of(3, 4), DType.FLOAT32, 0.1f, 5);

    // tf.truncated_normal(..., name="w_init"): w_init/shape, w_init/TruncatedNormal, w_init/mul, w_init.
    assertThat(w.op().name()).isEqualTo("w_init");
    assertThat(g.requireOperation("w_init/shape").type()).isEqualTo("Const");
    assertThat(g.requireOperation("w_init/TruncatedNormal").type()).isEqualTo("TruncatedNormal");
  }

  private static void checkNaming(Method m) throws Exception {
    String sig = signature(m);
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Object[] args = ARGUMENTS.getOrDefault(sig, f -> f.byType(m)).apply(new Fixture(tf));
    int before = g.version();
    Object result;
    try {
      result = m.invoke(tf.withName(GIVEN), args);
    } catch (InvocationTargetException e) {
      throw new AssertionError(sig + " failed with the arguments " + Arrays.deepToString(args)
          + "; give it suitable ones in OpsNamingTest.ARGUMENTS", e.getCause());
    }
    List<Operation> built = g.operationsSince(before);
    if (NAMED_BY_ARGUMENT.contains(sig)) {
      assertThat(((Variable) result).name()).as(sig).isEqualTo(args[0]);
      assertThat(g.operation(GIVEN)).as(sig + ": no op takes the pending name").isNull();
      return;
    }
    Operation returned = returnedOp(sig, result);
    assertThat(returned.name()).as(sig + ": the returned op takes the name").isEqualTo(GIVEN);
    assertThat(built).extracting(Operation::name)
        .as(sig + ": the other ops it builds go under the name")
        .allSatisfy(name -> assertThat(name.equals(GIVEN) || name.startsWith(GIVEN + "/")).as(name).isTrue());
  }

  /** The op whose outputs the method returns. */
  private static Operation returnedOp(String sig, Object result) {
    return switch (result) {
      case Output o -> o.op();
      case Operation op -> op;
      case IndexedSlices s -> {
        assertThat(List.of(s.indices().op(), s.denseShape().op())).as(sig).containsOnly(s.values().op());
        yield s.values().op();
      }
      case List<?> outputs when !outputs.isEmpty() && outputs.get(0) instanceof Output first -> {
        assertThat(outputs).as(sig).allSatisfy(o -> assertThat(((Output) o).op()).isSameAs(first.op()));
        yield first.op();
      }
      default -> fail(sig + " returned " + result + ": add the method to BUILD_NO_OP or teach returnedOp its type");
    };
  }

  private static List<Method> facadeMethods() {
    List<Method> methods = new ArrayList<>();
    for (Method m : Ops.class.getMethods()) {
      if (m.getDeclaringClass() != Object.class && !m.isSynthetic()) {
        methods.add(m);
      }
    }
    return methods;
  }

  private static String signature(Method m) {
    return m.getName() + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName)
        .collect(Collectors.joining(",", "(", ")"));
  }

  private static Tensor fetch(Graph g, String name) {
    try (Session s = Session.open(g)) {
      return s.runner().fetch(name).run().get(0);
    }
  }

  /** Arguments built in the graph before the named call (so none of them takes the name). */
  private record Fixture(Ops tf) {
    Output x() {
      return tf.constant(new float[] {1, 2, 3, 4}, 2, 2);
    }

    Output row() {
      return tf.constant(new float[] {1, 2}, 2);
    }

    Output rows() {
      return tf.constant(new float[] {1, 2}, 1, 2);
    }

    Output scalar() {
      return tf.constant(0.5f);
    }

    Output ints(int... v) {
      return tf.constant(v);
    }

    Output file() {
      return tf.placeholder(DType.STRING, Shape.scalar());
    }

    Variable var() {
      return tf.variable("v", x());
    }

    Output queue() {
      return tf.fifoQueue(List.of(DType.FLOAT32), List.of(Shape.of(2)), -1, "q");
    }

    Output accumulator() {
      return tf.conditionalAccumulator(DType.FLOAT32, Shape.of(2, 2), "acc");
    }

    Output sparseAccumulator() {
      return tf.sparseConditionalAccumulator(DType.FLOAT32, Shape.of(2, 2), "sparse_acc");
    }

    IndexedSlices slices() {
      return new IndexedSlices(ints(1), rows(), ints(2, 2));
    }

    /** Default arguments by parameter type: a [2,2] float tensor for every operand, and so on. */
    Object[] byType(Method m) {
      Type[] types = m.getGenericParameterTypes();
      Object[] args = new Object[types.length];
      for (int i = 0; i < types.length; i++) {
        args[i] = of(m, types[i]);
      }
      return args;
    }

    private Object of(Method m, Type type) {
      if (type instanceof ParameterizedType p) {
        Type element = p.getActualTypeArguments()[0];
        if (element instanceof WildcardType w) {
          element = w.getUpperBounds()[0];
        }
        return List.of(of(m, element));
      }
      return switch ((Class<?>) type) {
        case Class<?> c when c == Operand.class || c == Output.class -> x();
        case Class<?> c when c == Operand[].class -> new Operand[] {x(), x()};
        case Class<?> c when c == int.class -> 1;
        case Class<?> c when c == int[].class -> new int[0];
        case Class<?> c when c == int[][].class -> new int[][] {{0, 1}, {1, 0}};
        case Class<?> c when c == long.class -> 7L;
        case Class<?> c when c == long[].class -> new long[] {2, 2};
        case Class<?> c when c == float.class -> 1f;
        case Class<?> c when c == float[].class -> new float[] {1, 2, 3, 4};
        case Class<?> c when c == double.class -> 1.0;
        case Class<?> c when c == boolean.class -> false;
        case Class<?> c when c == DType.class -> DType.FLOAT32;
        case Class<?> c when c == Shape.class -> Shape.of(2, 2);
        case Class<?> c when c == Tensor.class -> Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
        case Class<?> c when c == String.class -> "res";
        case Class<?> c when c == Variable.class -> var();
        case Class<?> c when c == IndexedSlices.class -> slices();
        default -> throw new AssertionError(signature(m) + ": no default argument of type " + type
            + "; give it arguments in OpsNamingTest.ARGUMENTS");
      };
    }
  }
}
