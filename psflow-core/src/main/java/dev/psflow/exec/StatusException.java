package dev.psflow.exec;

/**
 * A runtime or remote failure with a status {@link Code}: raised by kernels, the executor, sessions
 * and (later) carried across the wire unchanged. The message is one line for the user: what failed,
 * where (op, device, task) and, when it is the user's to fix, what to do.
 *
 * <pre>{@code
 * throw StatusException.failedPrecondition("uninitialized variable hid_w: run the initializer first");
 * }</pre>
 */
public class StatusException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final Code code;

  public StatusException(Code code, String message) {
    super(message);
    this.code = code;
  }

  public StatusException(Code code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  public Code code() {
    return code;
  }

  /** The same code with context put in front of the message ("op 'x' (MatMul): ..."). */
  public StatusException withContext(String context) {
    return new StatusException(code, context + ": " + getMessage(), this);
  }

  public static StatusException invalidArgument(String message) {
    return new StatusException(Code.INVALID_ARGUMENT, message);
  }

  public static StatusException notFound(String message) {
    return new StatusException(Code.NOT_FOUND, message);
  }

  public static StatusException failedPrecondition(String message) {
    return new StatusException(Code.FAILED_PRECONDITION, message);
  }

  public static StatusException cancelled(String message) {
    return new StatusException(Code.CANCELLED, message);
  }

  public static StatusException aborted(String message) {
    return new StatusException(Code.ABORTED, message);
  }

  public static StatusException outOfRange(String message) {
    return new StatusException(Code.OUT_OF_RANGE, message);
  }

  public static StatusException permissionDenied(String message) {
    return new StatusException(Code.PERMISSION_DENIED, message);
  }

  public static StatusException unavailable(String message) {
    return new StatusException(Code.UNAVAILABLE, message);
  }

  public static StatusException internal(String message, Throwable cause) {
    return new StatusException(Code.INTERNAL, message, cause);
  }

  /** Converts anything thrown by a kernel into a status: ours pass through, caller mistakes are INVALID_ARGUMENT. */
  public static StatusException from(Throwable t) {
    if (t instanceof StatusException s) {
      return s;
    }
    if (t instanceof IllegalArgumentException || t instanceof IndexOutOfBoundsException
        || t instanceof ArithmeticException) {
      return new StatusException(Code.INVALID_ARGUMENT, String.valueOf(t.getMessage()), t);
    }
    if (t instanceof InterruptedException) {
      return new StatusException(Code.CANCELLED, "interrupted", t);
    }
    if (t instanceof OutOfMemoryError) {
      // A last resort: tensors are checked against the device's limit before they are allocated,
      // so this is the heap running out as a whole (many large tensors at once).
      return new StatusException(Code.RESOURCE_EXHAUSTED, "out of memory: " + t.getMessage()
          + "; give the task a larger heap (-Xmx) or lower --max_tensor_bytes", t);
    }
    if (t instanceof StackOverflowError) {
      return new StatusException(Code.INVALID_ARGUMENT, "the request is nested too deeply to process (stack overflow)", t);
    }
    return new StatusException(Code.INTERNAL, t.getClass().getSimpleName() + ": " + t.getMessage(), t);
  }
}
