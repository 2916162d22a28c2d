/**
 * TensorFlow's timeline, across tasks: {@link dev.psflow.exec.timeline.Timeline} turns the
 * {@link dev.psflow.exec.StepStats} of traced steps into Chrome Trace Event Format JSON (opened by
 * {@code chrome://tracing} and ui.perfetto.dev), one process row per task, and
 * {@link dev.psflow.exec.timeline.TraceFile} writes it, merging what several processes write to one
 * file.
 */
package dev.psflow.exec.timeline;
