/**
 * The floor under a local training step (bin/bench-local-floor): the replica example's model
 * trained by straight-line Java on one thread, with psflow's batches and GEMM and nothing of its
 * graph runtime, to set beside {@code psflow mnist} and TensorFlow's local run.
 */
package dev.psflow.bench.localstep;
