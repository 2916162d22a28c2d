package dev.psflow.cli;

import dev.psflow.cluster.TfConfig;

/**
 * Reads the {@code TF_CONFIG} environment variable for the programs that take their cluster from
 * it, the same way in each: parsed, then TensorFlow's separate {@code chief} job folded into the
 * workers ({@link TfConfig#withChiefAsWorkerZero()}: the chief is worker 0, worker i is worker
 * i + 1), so that every task of a cluster — chief, workers and ps, started by Kubeflow's training
 * operator or by the StatefulSets in deploy/kubernetes — agrees on the numbering. Stateless.
 *
 * <pre>{@code
 * TfConfig c = TfConfigEnv.read();   // null when TF_CONFIG is unset or blank
 * }</pre>
 */
final class TfConfigEnv {
  static final String NAME = "TF_CONFIG";

  private TfConfigEnv() {}

  /** The folded TF_CONFIG, or null when the variable is unset or blank; a malformed one fails naming what is wrong. */
  static TfConfig read() {
    String env = System.getenv(NAME);
    return env == null || env.isBlank() ? null : TfConfig.parse(env).withChiefAsWorkerZero();
  }

  /** Where the task TF_CONFIG names went after folding, e.g. "TF_CONFIG task chief:0 runs as worker 0 (the chief)". */
  static String describe(TfConfig folded) {
    TfConfig raw = TfConfig.parse(System.getenv(NAME));
    String as = folded.taskType() + " " + folded.taskIndex()
        + ("worker".equals(folded.taskType()) && folded.taskIndex() == 0 ? " (the chief)" : "");
    return "TF_CONFIG task " + raw.taskType() + ":" + raw.taskIndex() + " runs as " + as;
  }
}
