package dev.psflow.cli;

/**
 * A program whose job trains on when some of its non-chief workers are lost for good — backup
 * workers, in TensorFlow's words: asynchronous training, or synchronous training that aggregates
 * fewer replicas per step than there are workers. {@code local-cluster} asks it, once the
 * program's flags are parsed, how many workers it may lose before it stops the job.
 */
interface BackupWorkers {
  /** How many non-chief workers, of {@code workers}, the job can lose and still finish. */
  int maxLostWorkers(int workers);
}
