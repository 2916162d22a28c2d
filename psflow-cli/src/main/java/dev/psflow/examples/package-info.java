/**
 * The example programs: TensorFlow's distributed MNIST replica example (between-graph), the same
 * model with in-graph replication, and the toy placement example.
 */
package dev.psflow.examples;
