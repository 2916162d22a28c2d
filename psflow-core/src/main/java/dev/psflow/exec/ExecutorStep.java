package dev.psflow.exec;

import dev.psflow.exec.Executor.Node;
import dev.psflow.graph.Operation;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** The state of one step of an {@link Executor}: tensor slots, pending counts, the result. */
final class ExecutorStep {
  private final Executor executor;
  private final StepContext step;
  final Tensor[] slots;
  private final AtomicIntegerArray pending;
  private final AtomicInteger outstanding;
  private final CompletableFuture<List<Tensor>> result = new CompletableFuture<>();

  ExecutorStep(Executor executor, StepContext step, int numSlots, int[] pending, int numNodes) {
    this.executor = executor;
    this.step = step;
    this.slots = new Tensor[numSlots];
    this.pending = new AtomicIntegerArray(pending);
    this.outstanding = new AtomicInteger(numNodes);
  }

  CompletableFuture<List<Tensor>> result() {
    return result;
  }

  void start(int[] roots) {
    if (roots.length == 0) {
      finish();
      return;
    }
    step.cancellation().onCancel(() -> result.completeExceptionally(step.cancellation().cause()));
    IntQueue ready = new IntQueue();
    for (int r : roots) {
      if (worthAnotherCore(executor.node(r)) && hasExpensive(ready)) {
        ComputePool.execute(() -> runFrom(r));
      } else {
        ready.add(r);
      }
    }
    drain(ready);
  }

  /**
   * Runs {@code first} and then, inline, the ops it makes ready (and the ones they make ready...);
   * an expensive op that becomes ready alongside other work goes to the pool.
   */
  private void runFrom(int first) {
    IntQueue ready = new IntQueue();
    ready.add(first);
    drain(ready);
  }

  private void drain(IntQueue ready) {
    try {
      drainReady(ready);
    } finally {
      Rendezvous r = step.rendezvous();
      if (r != null) {
        r.flush(); // the Recvs these ops started, together
      }
    }
  }

  private void drainReady(IntQueue ready) {
    while (!ready.isEmpty()) {
      if (result.isDone()) {
        return;
      }
      Node n = executor.node(ready.poll());
      if (n.async()) {
        runAsync(n);
        continue;
      }
      try {
        StepTracer tracer = step.tracer();
        if (tracer == null) {
          n.kernel().compute(new Context(n));
        } else {
          long start = System.nanoTime();
          n.kernel().compute(new Context(n));
          tracer.opDone(n.op(), start, System.nanoTime(), outputBytes(n));
        }
        checkOutputs(n);
      } catch (Throwable t) {
        fail(n, t);
        return;
      }
      propagate(n, ready);
    }
  }

  private void runAsync(Node n) {
    Context ctx = new Context(n);
    long start = step.tracer() == null ? 0 : System.nanoTime();
    try {
      ((AsyncKernel) n.kernel()).computeAsync(ctx, () -> {
        if (ctx.error != null) {
          fail(n, ctx.error);
          return;
        }
        if (step.tracer() != null) {
          step.tracer().opDone(n.op(), start, System.nanoTime(), outputBytes(n));
        }
        try {
          checkOutputs(n);
        } catch (Throwable t) {
          fail(n, t);
          return;
        }
        IntQueue ready = new IntQueue();
        propagate(n, ready);
        drain(ready);
      });
    } catch (Throwable t) {
      fail(n, t);
    }
  }

  /**
   * Decrements successors' pending counts; those that become ready join {@code ready}, except an
   * op {@link #worthAnotherCore} when one such is already queued here: that one goes to another core.
   */
  private void propagate(Node n, IntQueue ready) {
    for (int s : n.successors()) {
      if (pending.decrementAndGet(s) == 0) {
        if (worthAnotherCore(executor.node(s)) && hasExpensive(ready)) {
          ComputePool.execute(() -> runFrom(s));
        } else {
          ready.add(s);
        }
      }
    }
    if (outstanding.decrementAndGet() == 0) {
      finish();
    }
  }

  /**
   * Whether this thread already has work {@link #worthAnotherCore} queued: only then is a second such
   * op worth another core (a lone one runs sooner here than after a handoff and a wake-up).
   */
  private boolean hasExpensive(IntQueue ready) {
    for (int i = ready.head; i < ready.tail; i++) {
      if (worthAnotherCore(executor.node(ready.items[i]))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The fewest input elements of an expensive op worth handing to another core (65,536 unless
   * {@code -Dpsflow.handoffMinElements=N}; 0 hands off every expensive op, as before there was a floor).
   */
  static final long HANDOFF_MIN_ELEMENTS = Long.getLong("psflow.handoffMinElements", 1 << 16);

  /**
   * Whether {@code n}, now ready, is worth a core of its own: an expensive op ({@link
   * dev.psflow.ops.OpDef#isExpensive}) whose inputs hold {@link #HANDOFF_MIN_ELEMENTS} elements or more.
   * A handoff costs the stepping thread a wake-up of a pool thread and that thread tens of microseconds
   * of spinning, more than a small product or an update of a bias takes: in the replica example's
   * local step, where every handoff was of such an op (the output layer's products, its Adam updates),
   * handing none off ran 1.07x the steps/sec (docs/benchmarks.md).
   */
  private boolean worthAnotherCore(Node n) {
    if (!n.expensive()) {
      return false;
    }
    long elements = 0;
    for (int s : n.inSlots()) {
      Tensor t = slots[s];
      if (t != null) {
        elements += t.size();
      }
    }
    return elements >= HANDOFF_MIN_ELEMENTS;
  }

  /** A small growable FIFO of node indices, local to one thread. */
  private static final class IntQueue {
    private int[] items = new int[16];
    private int head;
    private int tail;

    boolean isEmpty() {
      return head == tail;
    }

    void add(int v) {
      if (tail == items.length) {
        if (head > 0) {
          System.arraycopy(items, head, items, 0, tail - head);
          tail -= head;
          head = 0;
        } else {
          items = java.util.Arrays.copyOf(items, items.length * 2);
        }
      }
      items[tail++] = v;
    }

    int poll() {
      return items[head++];
    }
  }

  /** The bytes of the op's outputs (only when tracing: it walks the outputs). */
  private long outputBytes(Node n) {
    long bytes = 0;
    for (int i = 0; i < n.op().numOutputs(); i++) {
      Tensor t = slots[n.outBase() + i];
      if (t != null) {
        bytes += (long) t.size() * Math.max(1, t.dtype().byteSize());
      }
    }
    return bytes;
  }

  private void checkOutputs(Node n) {
    Operation op = n.op();
    for (int i = 0; i < op.numOutputs(); i++) {
      Tensor t = slots[n.outBase() + i];
      if (t == null) {
        throw StatusException.internal("kernel of '" + op.name() + "' (" + op.type() + ") did not set output " + i, null);
      }
      if (t.dtype() != op.outputType(i)) {
        throw StatusException.internal("kernel of '" + op.name() + "' (" + op.type() + ") produced " + t.dtype()
            + " for output " + i + " declared " + op.outputType(i), null);
      }
    }
  }

  private void fail(Node n, Throwable t) {
    StatusException s = StatusException.from(t);
    Operation op = n.op();
    StatusException withOp = new StatusException(s.code(),
        s.getMessage() + " [op '" + op.name() + "' (" + op.type() + ") on " + executor.device() + "]", s);
    if (result.completeExceptionally(withOp)) {
      step.cancellation().cancel(withOp);
    }
  }

  private void finish() {
    int[] fetch = executor.fetchSlots();
    List<Tensor> out = new ArrayList<>(fetch.length);
    for (int f : fetch) {
      out.add(slots[f]);
    }
    result.complete(out);
  }

  /** The view one kernel call has of the step. */
  private final class Context implements KernelContext {
    private final Node node;
    private volatile StatusException error;

    Context(Node node) {
      this.node = node;
    }

    @Override
    public Operation op() {
      return node.op();
    }

    @Override
    public Tensor input(int i) {
      return slots[node.inSlots()[i]];
    }

    @Override
    public int numInputs() {
      return node.inSlots().length;
    }

    @Override
    public void setOutput(int i, Tensor value) {
      slots[node.outBase() + i] = value;
    }

    @Override
    public Device device() {
      return executor.device();
    }

    @Override
    public StepContext step() {
      return step;
    }

    @Override
    public void fail(StatusException e) {
      error = e;
    }
  }
}
