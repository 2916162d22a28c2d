/**
 * The example programs: TensorFlow's distributed MNIST replica example, the toy placement example
 * and the sharded embedding lookup.
 */
package dev.psflow.examples;
