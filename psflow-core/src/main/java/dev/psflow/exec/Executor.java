package dev.psflow.exec;

import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Runs one graph (or one partition of it) on one device, once per step. Built once from a pruned,
 * topologically ordered op list, the tensors fed in and the tensors fetched out: kernels are
 * created, every input edge resolved to a slot index, and pending counts precomputed, so a step
 * costs an array copy and, per op, one kernel call and a few counter decrements.
 *
 * <p>Scheduling: a finished op decrements its successors' pending counts; the ops that become ready
 * run inline on the same thread, one after the other, except that a second expensive op
 * ({@link dev.psflow.ops.OpDef#isExpensive}) with large inputs (65,536 elements or more) ready
 * alongside another goes to the {@link ComputePool} so it can use another core: a handoff costs
 * microseconds, more than most kernels.
 * Asynchronous kernels (Recv, dequeue) return at once and continue on their callback. The first
 * failure cancels the step and fails the result; ops still running see it and stop.
 *
 * <p>Thread-safe: one executor may run many steps concurrently.
 *
 * <pre>{@code
 * Executor ex = Executor.build(Pruner.prune(roots, fed), device, List.of(x), List.of(y));
 * List<Tensor> out = ex.run(StepContext.local(1), new Tensor[] {xValue}).join();
 * }</pre>
 */
public final class Executor {
  /** One op of the executor, with everything a step needs precomputed. */
  record Node(Operation op, Kernel kernel, boolean async, boolean expensive, int outBase, int[] inSlots,
      int[] successors) {}

  private final Device device;
  private final Node[] nodes;
  private final int numSlots;
  private final int[] initialPending;
  private final int[] roots;
  private final int[] feedSlots;
  private final int[] fetchSlots;
  private List<Output> feeds = List.of();

  private Executor(Device device, Node[] nodes, int numSlots, int[] initialPending, int[] roots, int[] feedSlots,
      int[] fetchSlots) {
    this.device = device;
    this.nodes = nodes;
    this.numSlots = numSlots;
    this.initialPending = initialPending;
    this.roots = roots;
    this.feedSlots = feedSlots;
    this.fetchSlots = fetchSlots;
  }

  /**
   * Builds an executor for {@code ops} (topologically ordered, closed under inputs except for fed
   * tensors). Throws StatusException (INVALID_ARGUMENT) naming the op whose kernel cannot be built,
   * or RESOURCE_EXHAUSTED naming an op whose known output shape is over the device's tensor size limit.
   */
  public static Executor build(List<Operation> ops, Device device, List<Output> feeds, List<Output> fetches) {
    Map<Operation, Integer> index = new HashMap<>();
    int[] outBase = new int[ops.size()];
    int slots = 0;
    for (int i = 0; i < ops.size(); i++) {
      index.put(ops.get(i), i);
      outBase[i] = slots;
      slots += ops.get(i).numOutputs();
    }
    Map<Output, Integer> feedSlot = new HashMap<>();
    int[] feedSlots = new int[feeds.size()];
    for (int i = 0; i < feeds.size(); i++) {
      Integer slot = feedSlot.get(feeds.get(i));
      if (slot == null) {
        slot = slots++;
        feedSlot.put(feeds.get(i), slot);
      }
      feedSlots[i] = slot;
    }
    List<List<Integer>> succ = new ArrayList<>();
    int[] pending = new int[ops.size()];
    Node[] nodes = new Node[ops.size()];
    for (int i = 0; i < ops.size(); i++) {
      succ.add(new ArrayList<>());
    }
    for (int i = 0; i < ops.size(); i++) {
      Operation op = ops.get(i);
      int[] in = new int[op.numInputs()];
      for (int j = 0; j < in.length; j++) {
        Output o = op.input(j);
        Integer fs = feedSlot.get(o);
        if (fs != null) {
          in[j] = fs;
          continue;
        }
        Integer src = index.get(o.op());
        if (src == null) {
          throw StatusException.internal("input " + o.name() + " of op '" + op.name() + "' is neither fed nor computed", null);
        }
        in[j] = outBase[src] + o.index();
        succ.get(src).add(i);
        pending[i]++;
      }
      for (Operation c : op.controlInputs()) {
        Integer src = index.get(c);
        if (src == null) {
          throw StatusException.internal("control input '" + c.name() + "' of op '" + op.name() + "' is not in the step", null);
        }
        succ.get(src).add(i);
        pending[i]++;
      }
      device.tensorSizeLimit().checkStaticOutputs(op);
      Kernel k = createKernel(op, device);
      nodes[i] = new Node(op, k, k instanceof AsyncKernel, op.def().isExpensive(), outBase[i], in, null);
    }
    List<Integer> roots = new ArrayList<>();
    for (int i = 0; i < nodes.length; i++) {
      Node n = nodes[i];
      nodes[i] = new Node(n.op(), n.kernel(), n.async(), n.expensive(), n.outBase(), n.inSlots(),
          succ.get(i).stream().mapToInt(Integer::intValue).toArray());
      if (pending[i] == 0) {
        roots.add(i);
      }
    }
    int[] fetchSlots = new int[fetches.size()];
    for (int i = 0; i < fetches.size(); i++) {
      Output f = fetches.get(i);
      Integer fs = feedSlot.get(f);
      Integer src = index.get(f.op());
      if (fs == null && src == null) {
        throw StatusException.internal("fetch " + f.name() + " is neither fed nor computed", null);
      }
      fetchSlots[i] = fs != null ? fs : outBase[src] + f.index();
    }
    Executor ex = new Executor(device, nodes, slots, pending, roots.stream().mapToInt(Integer::intValue).toArray(),
        feedSlots, fetchSlots);
    ex.feeds = List.copyOf(feeds);
    return ex;
  }

  private static Kernel createKernel(Operation op, Device device) {
    try {
      return op.def().kernel(op);
    } catch (RuntimeException e) {
      throw StatusException.from(e).withContext("cannot create the kernel of op '" + op.name() + "' (" + op.type() + ") on " + device);
    }
  }

  /** Runs one step with {@code feedValues} in the order of the feeds given at build time. */
  public CompletableFuture<List<Tensor>> run(StepContext step, Tensor[] feedValues) {
    if (feedValues.length != feedSlots.length) {
      throw new IllegalArgumentException("expected " + feedSlots.length + " feed values, got " + feedValues.length);
    }
    ExecutorStep s = new ExecutorStep(this, step, numSlots, initialPending.clone(), nodes.length);
    for (int i = 0; i < feedSlots.length; i++) {
      s.slots[feedSlots[i]] = feedValues[i];
    }
    s.start(roots);
    return s.result();
  }

  Node node(int i) {
    return nodes[i];
  }

  Device device() {
    return device;
  }

  int[] fetchSlots() {
    return fetchSlots;
  }

  /** The tensors fed at each step, in order. */
  public List<Output> feeds() {
    return feeds;
  }

  /** The ops this executor runs, in order. */
  public List<Operation> operations() {
    List<Operation> out = new ArrayList<>(nodes.length);
    for (Node n : nodes) {
      out.add(n.op());
    }
    return out;
  }
}
