/**
 * {@code bin/bench-transport}: the floor under psflow's transport. Bare gRPC-java (no psflow code
 * on either side) carries one worker step's traffic of the replica example's model, 4 pulls and 4
 * pushes of its variables' bytes, between two JVMs on loopback, and each side's CPU per step is
 * read in windows: what any program built on gRPC-java pays for that traffic on this machine, with
 * mutual TLS or in plaintext, at C1 only (how psflow's cluster tasks run) or with C2.
 */
package dev.psflow.bench.transport;
