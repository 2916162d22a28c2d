/**
 * The float GEMM kernel as it was before issue 9's rework, a baseline for {@code GemmGflops}.
 */
package dev.psflow.bench.baseline;
