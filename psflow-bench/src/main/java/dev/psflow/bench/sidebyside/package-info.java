/**
 * {@code bin/bench}: psflow and the TensorFlow reference trained side by side (local, async, sync),
 * alternating run by run, measured from outside each process, and reported in one table. The pure
 * parts (what a process printed, medians, the table) are separate from the parts that start and
 * watch processes, so that they can be tested without running anything.
 */
package dev.psflow.bench.sidebyside;
