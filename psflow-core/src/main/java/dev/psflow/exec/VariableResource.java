package dev.psflow.exec;

import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The storage behind a resource variable: a dtype, a shape and a value, created by
 * {@code VarHandleOp} and filled by {@code AssignVariableOp}. A read shares the value rather than
 * copying it ({@link #read()}), and the next update copies it first (copy-on-write, as TensorFlow's
 * resource variables do), so a reader keeps the value it read; apply kernels otherwise update it in
 * place through {@link #valueForUpdate()} or {@link #rewrite}, without a lock unless the op asks
 * for {@code use_locking} ({@link #lock()}), as in TensorFlow, so a reader may see an update that
 * was already under way when it read. Thread-safe in that sense.
 */
public final class VariableResource implements Resource {
  private final String name;
  private final DType dtype;
  private final Shape shape; // the declared shape; may be partial
  private final ReentrantLock lock = new ReentrantLock();
  private volatile Tensor value;
  // Whether a reader may hold `value`: set by read(), cleared by the update that copies it. An updater
  // clears it before it publishes the copy, and a reader sets it before it reads `value` and checks it
  // after, so a reader never returns a value that an update which saw the flag clear may write to.
  private volatile boolean shared;

  public VariableResource(String name, DType dtype, Shape shape) {
    this.name = name;
    this.dtype = dtype;
    this.shape = shape;
  }

  public String name() {
    return name;
  }

  public DType dtype() {
    return dtype;
  }

  public Shape declaredShape() {
    return shape;
  }

  public boolean isInitialized() {
    return value != null;
  }

  /**
   * The current value, shared with the variable: updates from now on go to a copy, so the reader's
   * tensor keeps what it read (ReadVariableOp). FAILED_PRECONDITION naming the variable when it has
   * no value. A read used to copy the value: 3% of a local MNIST step, most of it the hidden layer's
   * 313 KB, which the next Adam update now writes to a new array as it computes it ({@link #rewrite}).
   */
  public Tensor read() {
    while (true) {
      shared = true;
      Tensor v = live();
      if (shared) {
        return v;
      }
    }
  }

  /**
   * The live value, to read without marking it shared: for a caller done with it before any update
   * could matter (a checkpoint's write, a gather that copies rows, a look at global_step). Never
   * write to it; FAILED_PRECONDITION naming the variable when it has no value.
   */
  public Tensor live() {
    Tensor v = value;
    if (v == null) {
      throw StatusException.failedPrecondition(
          "uninitialized variable " + name + ": run its initializer (or the global variables initializer) first");
    }
    return v;
  }

  /**
   * The value to update in place: the live value, or, when a reader holds it, a copy that becomes
   * the value first.
   */
  public Tensor valueForUpdate() {
    Tensor v = live();
    if (!shared) {
      return v;
    }
    lock.lock();
    try {
      if (shared) {
        Tensor copy = value.copy();
        shared = false;
        value = copy;
      }
      return value;
    } finally {
      lock.unlock();
    }
  }

  /** A dense update that computes every element of the new value from the old one. */
  @FunctionalInterface
  public interface Rewrite {
    /** Writes the new value to {@code to}, reading the old one from {@code from}, which may be {@code to} itself. */
    void apply(Tensor from, Tensor to);
  }

  /**
   * Runs {@code update} in place, or, when a reader holds the value, from the value into a new tensor
   * that becomes the value once written (under {@link #lock()}, so that two such updates do not both
   * start from the old value): the copy that copy-on-write needs is the update's own writes. The lock
   * is held only while the update computes, so an update of the same variable that waits for it
   * waits for arithmetic, never for I/O or another step, as a {@code use_locking} apply does.
   */
  public void rewrite(Rewrite update) {
    Tensor v = live();
    if (!shared) {
      update.apply(v, v);
      return;
    }
    lock.lock();
    try {
      Tensor from = live();
      if (!shared) {
        update.apply(from, from);
        return;
      }
      Tensor to = Tensor.zeros(from.dtype(), from.shape());
      update.apply(from, to);
      shared = false;
      value = to;
    } finally {
      lock.unlock();
    }
  }

  /** Replaces the value (the tensor is owned by the variable from now on). */
  public void assign(Tensor t) {
    if (t.dtype() != dtype) {
      throw StatusException.invalidArgument(
          "cannot assign a " + t.dtype() + " tensor to variable " + name + " of type " + dtype);
    }
    if (!shape.isCompatibleWith(t.shape())) {
      throw StatusException.invalidArgument(
          "cannot assign a tensor of shape " + t.shape() + " to variable " + name + " of shape " + shape);
    }
    shared = false;
    value = t;
  }

  /** The lock that {@code use_locking=true} applies take. */
  public ReentrantLock lock() {
    return lock;
  }

  @Override
  public String describe() {
    return "variable " + name + " " + dtype + " " + shape;
  }
}
