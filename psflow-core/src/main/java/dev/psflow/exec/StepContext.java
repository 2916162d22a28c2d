package dev.psflow.exec;

/**
 * What every kernel of one step shares: the step id, its cancellation, the rendezvous through which
 * Send and Recv of this step meet (null when the step has no cross-device edges), an optional
 * tracer that times each op, and who ran the step: the calling task ({@code caller}, "" when
 * unknown) and the global step this task held when the step began ({@code readGlobalStep}, -1 when
 * it holds none) — the step at which the worker read its parameters, so an apply later in the step
 * knows how stale its gradient is.
 */
public record StepContext(long stepId, CancellationManager cancellation, Rendezvous rendezvous, StepTracer tracer,
    String caller, long readGlobalStep) {
  public StepContext(long stepId, CancellationManager cancellation, Rendezvous rendezvous, StepTracer tracer) {
    this(stepId, cancellation, rendezvous, tracer, "", -1);
  }

  public StepContext(long stepId, CancellationManager cancellation, Rendezvous rendezvous) {
    this(stepId, cancellation, rendezvous, null);
  }

  public static StepContext local(long stepId) {
    return new StepContext(stepId, new CancellationManager(), null, null);
  }

  public StepContext withTracer(StepTracer t) {
    return new StepContext(stepId, cancellation, rendezvous, t, caller, readGlobalStep);
  }
}
