package dev.psflow.train;

import dev.psflow.graph.Graph;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.ReadVariableOp;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.util.ArrayList;
import java.util.List;

/**
 * TensorFlow's {@code tf.train.SyncReplicasOptimizer}: synchronous data-parallel training over a
 * wrapped optimizer. Built as TensorFlow builds it:
 * <ul>
 *   <li>per variable, a ConditionalAccumulator ({@code <var>/grad_accum}, a sparse one for
 *       IndexedSlices gradients) colocated with the variable, so on its ps;
 *   <li>a local variable {@code sync_rep_local_step} on each worker, the global step its gradients
 *       were computed at (set from global_step by {@link #localStepInitOp()});
 *   <li>the worker's train op ({@code <name>_train}, what {@link #applyGradients} returns): apply
 *       every gradient to its accumulator with the local step — gradients older than the accumulator's step are dropped —,
 *       then dequeue a token from {@code sync_token_q} (on the global step's task) and assign it to
 *       the local step;
 *   <li>the chief's {@link #chiefQueueRunner()}: takes the average of {@code replicasToAggregate}
 *       gradients from every accumulator (which also advances each accumulator's step), applies them
 *       once through the wrapped optimizer (which increments global_step) and enqueues one token per
 *       replica holding the new global step.
 * </ul>
 * With more replicas than gradients to aggregate (backup workers), each step goes ahead on the
 * first {@code replicasToAggregate} gradients; a straggler's gradient for an old step is dropped.
 *
 * <p>Not thread-safe (graph building); {@link #applyGradients} may be called once.
 *
 * <pre>{@code
 * SyncReplicasOptimizer opt = new SyncReplicasOptimizer(new AdamOptimizer(0.01), 2, 2);
 * Operation train = opt.minimize(loss, globalStep);
 * Supervisor sv = new Supervisor(g, isChief, init, 1.0)
 *     .withLocalInit(isChief ? opt.chiefInitOp() : opt.localStepInitOp(), opt.readyForLocalInitOp());
 * Session s = sv.prepareOrWaitForSession(target, options);
 * if (isChief) { s.runner().addTarget(opt.getInitTokensOp()).run(); opt.chiefQueueRunner().start(s); }
 * }</pre>
 */
public final class SyncReplicasOptimizer extends Optimizer {
  private final Optimizer opt;
  private final int replicasToAggregate;
  private final int totalNumReplicas;
  private final int tokensPerStep;
  private Built built;

  /** What {@link #applyGradients} built. */
  private record Built(Variable globalStep, Variable localStep, Output tokenQueue, Operation localStepInitOp,
      Operation chiefInitOp, Output readyForLocalInitOp, QueueRunner chiefQueueRunner, List<Output> accumulators,
      Output droppedGradients) {}

  public SyncReplicasOptimizer(Optimizer opt, int replicasToAggregate, int totalNumReplicas) {
    this(opt, replicasToAggregate, totalNumReplicas, "sync_replicas");
  }

  /**
   * @param replicasToAggregate gradients averaged per variable for each update
   * @param totalNumReplicas workers taking part; more than replicasToAggregate makes the rest backups
   */
  public SyncReplicasOptimizer(Optimizer opt, int replicasToAggregate, int totalNumReplicas, String name) {
    super(name, false);
    if (replicasToAggregate < 1 || totalNumReplicas < 1) {
      throw new IllegalArgumentException("replicas_to_aggregate and total_num_replicas must be positive, got "
          + replicasToAggregate + " and " + totalNumReplicas);
    }
    this.opt = opt;
    this.replicasToAggregate = replicasToAggregate;
    this.totalNumReplicas = totalNumReplicas;
    this.tokensPerStep = Math.max(totalNumReplicas, replicasToAggregate);
  }

  public int replicasToAggregate() {
    return replicasToAggregate;
  }

  public int totalNumReplicas() {
    return totalNumReplicas;
  }

  /** The wrapped optimizer's gradients. */
  @Override
  public List<GradAndVar> computeGradients(Operand loss, List<Variable> varList, boolean colocateGradientsWithOps) {
    return opt.computeGradients(loss, varList, colocateGradientsWithOps);
  }

  /**
   * Builds the accumulators, the token queue and the chief's aggregation, and returns this worker's
   * train op (apply to the accumulators, then wait for a token). Needs the global step (int64).
   */
  @Override
  public Operation applyGradients(List<GradAndVar> gradsAndVars, Variable globalStep, String name) {
    if (globalStep == null) {
      throw new IllegalArgumentException("Global step is required to check staleness");
    }
    if (globalStep.dtype() != DType.INT64) {
      throw new IllegalArgumentException("the global step must be int64, got " + globalStep.dtype());
    }
    if (built != null) {
      throw new IllegalStateException("apply_gradients of " + name() + " was already called: build it once per graph");
    }
    if (gradsAndVars.isEmpty()) {
      throw new IllegalArgumentException("Must supply at least one variable");
    }
    Graph g = globalStep.handle().op().graph();
    Ops root = Ops.create(g);
    // The anchor has no device, so it lands on the worker running the session: the local step stays there.
    Ops local = root.withColocation(root.withName("sync_rep_local_anchor").noOp());
    Variable localStep = local.localVariable("sync_rep_local_step", local.constant(0L));
    Operation localStepInitOp = root.assign(localStep, globalStep);

    Ops scoped = root.withSubScope(name);
    List<Operation> applies = new ArrayList<>();
    List<GradAndVar> aggregated = new ArrayList<>();
    List<Output> accumulators = new ArrayList<>();
    List<Operation> chiefInit = new ArrayList<>(List.of(localStepInitOp));
    for (GradAndVar gv : gradsAndVars) {
      Variable var = gv.variable();
      if (gv.gradient() == null) {
        aggregated.add(gv);
        continue;
      }
      Ops near = scoped.withColocation(var.handle().op());
      Output required = near.constant(replicasToAggregate);
      String sharedName = var.name() + "/grad_accum";
      Output acc;
      if (gv.gradient() instanceof IndexedSlices slices) {
        acc = near.sparseConditionalAccumulator(slices.dtype(), var.shape(), sharedName);
        applies.add(near.sparseAccumulatorApplyGradient(acc, localStep, slices));
        aggregated.add(new GradAndVar(near.sparseAccumulatorTakeGradient(acc, required, slices.dtype()), var));
      } else {
        Output grad = gv.gradient().asOutput();
        acc = near.conditionalAccumulator(grad.dtype(), var.shape(), sharedName);
        applies.add(near.accumulatorApplyGradient(acc, localStep, grad));
        aggregated.add(new GradAndVar(near.accumulatorTakeGradient(acc, required, grad.dtype()), var));
      }
      accumulators.add(acc);
      chiefInit.add(near.accumulatorSetGlobalStep(acc, globalStep));
    }
    if (accumulators.isEmpty()) {
      throw new IllegalArgumentException("No gradients provided for any variable");
    }
    Operation update = opt.applyGradients(aggregated, globalStep);

    Ops atStep = root.withColocation(globalStep.handle().op());
    Output tokenQueue = atStep.withName("sync_token_q")
        .fifoQueue(List.of(DType.INT64), List.of(Shape.scalar()), -1, "sync_token_q");
    Output token = atStep.withName("sync_token_q_Dequeue").withControlDependencies(applies)
        .queueDequeue(tokenQueue, List.of(DType.INT64)).get(0);
    Operation trainOp = root.withName(name + "_train").assign(localStep, token);

    // The tokens carry the global step as it is after the update: a read ordered after it.
    Ops afterUpdate = atStep.withControlDependencies(update);
    Output stepNow = ReadVariableOp.create(afterUpdate.scope().withName("global_step_after_update"),
        globalStep.handle(), DType.INT64);
    Operation syncOp = atStep.withName("sync_token_q_EnqueueMany")
        .queueEnqueueMany(tokenQueue, List.of(fill(afterUpdate, tokensPerStep, stepNow)));

    List<Output> dropped = new ArrayList<>();
    for (Output acc : accumulators) {
      dropped.add(root.accumulatorNumDropped(acc));
    }
    built = new Built(globalStep, localStep, tokenQueue, localStepInitOp,
        scoped.withName("chief_init").group(chiefInit),
        root.reportUninitializedVariables(root.globalVariables()),
        new QueueRunner(List.of(syncOp), null), List.copyOf(accumulators),
        root.withName("sync_dropped_gradients").addN(dropped));
    return trainOp;
  }

  private static Output fill(Ops tf, int n, Output value) {
    return tf.fill(tf.constant(new int[] {n}, 1), value);
  }

  /**
   * An op that puts {@code numTokens} tokens (the current global step) in the queue, so the workers'
   * first steps do not wait for the chief; the chief runs it once before starting its queue runner.
   */
  public Operation getInitTokensOp(int numTokens) {
    Built b = requireBuilt("getInitTokensOp");
    int needed = replicasToAggregate - totalNumReplicas;
    if (numTokens < needed) {
      throw new IllegalArgumentException("Too few tokens to finish the first step: " + numTokens + " (given) vs "
          + needed + " (needed)");
    }
    Ops atStep = Ops.create(b.globalStep().handle().op().graph()).withColocation(b.globalStep().handle().op());
    if (numTokens == 0) {
      return atStep.withName("no_init_tokens").noOp();
    }
    return atStep.queueEnqueueMany(b.tokenQueue(), List.of(fill(atStep, numTokens, b.globalStep().asOutput())));
  }

  /** {@link #getInitTokensOp(int)} with one token per replica (max of total replicas and replicas to aggregate). */
  public Operation getInitTokensOp() {
    return getInitTokensOp(tokensPerStep);
  }

  /**
   * The hook a {@link MonitoredTrainingSession} runs this optimizer with (TensorFlow's
   * {@code make_session_run_hook}): local init on every worker; on the chief the init tokens and the
   * chief queue runner, again after each recovery.
   */
  public SyncReplicasHook makeSessionRunHook(boolean isChief) {
    Built b = requireBuilt("makeSessionRunHook");
    return isChief
        ? new SyncReplicasHook(true, b.chiefInitOp(), b.readyForLocalInitOp(), getInitTokensOp(), b.chiefQueueRunner())
        : new SyncReplicasHook(false, b.localStepInitOp(), b.readyForLocalInitOp(), null, null);
  }

  /** The chief's aggregation op in a loop: start it on the chief's session after the init tokens. */
  public QueueRunner chiefQueueRunner() {
    return requireBuilt("chiefQueueRunner").chiefQueueRunner();
  }

  /** The chief's local init: the local step from global_step, and every accumulator's step from global_step. */
  public Operation chiefInitOp() {
    return requireBuilt("chiefInitOp").chiefInitOp();
  }

  /** A non-chief's local init: the local step from global_step. */
  public Operation localStepInitOp() {
    return requireBuilt("localStepInitOp").localStepInitOp();
  }

  /** The names of the uninitialized global variables: local init may run once it is empty. */
  public Output readyForLocalInitOp() {
    return requireBuilt("readyForLocalInitOp").readyForLocalInitOp();
  }

  /** This worker's local step variable. */
  public Variable localStep() {
    return requireBuilt("localStep").localStep();
  }

  /** The token queue's handle (on the global step's task). */
  public Output tokenQueue() {
    return requireBuilt("tokenQueue").tokenQueue();
  }

  /** The handles of the gradient accumulators, one per variable with a gradient. */
  public List<Output> accumulators() {
    return requireBuilt("accumulators").accumulators();
  }

  /** The number of stale gradients dropped so far, summed over the accumulators (int64): for the chief's summary. */
  public Output droppedGradients() {
    return requireBuilt("droppedGradients").droppedGradients();
  }

  private Built requireBuilt(String what) {
    if (built == null) {
      throw new IllegalStateException(what + " should be called after apply_gradients() (or minimize())");
    }
    return built;
  }

  /** Never called: the updates are the wrapped optimizer's. */
  @Override
  protected Operation applyDense(Ops tf, Output grad, Variable var) {
    throw new UnsupportedOperationException("SyncReplicasOptimizer applies through " + opt.name());
  }
}
