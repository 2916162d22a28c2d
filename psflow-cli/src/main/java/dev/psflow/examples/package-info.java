/**
 * The example programs: TensorFlow's distributed MNIST replica example (between-graph), the same
 * model with in-graph replication, the toy placement example and the sharded embedding lookup.
 */
package dev.psflow.examples;
