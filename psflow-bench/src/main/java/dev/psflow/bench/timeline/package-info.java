/**
 * Pictures of traces: {@link dev.psflow.bench.timeline.TraceSvg} draws one step of a
 * {@code --trace_steps} Chrome trace as an SVG timeline (the picture in docs/how-a-step-flows.md)
 * and prints the step's figures.
 */
package dev.psflow.bench.timeline;
