package dev.psflow.bench.sidebyside;

/**
 * What one process cost: CPU seconds (user + system, its whole life), peak resident memory in
 * bytes ({@code VmHWM}; -1 if never read) and wall seconds from launch to exit.
 */
record ProcessStats(double cpuSeconds, long peakRssBytes, double wallSeconds) {}
