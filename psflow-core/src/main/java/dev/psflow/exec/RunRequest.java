package dev.psflow.exec;

import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.tensor.Tensor;
import java.util.List;

/**
 * What one {@code Session.run} asks for: tensors fed (in order), tensors fetched, ops run for their
 * effect, and the run's options (trace level; a deadline, 0: the session's default).
 */
public record RunRequest(List<Output> feeds, List<Tensor> feedValues, List<Output> fetches, List<Operation> targets,
    RunOptions options) {
  public RunRequest {
    feeds = List.copyOf(feeds);
    feedValues = List.copyOf(feedValues);
    fetches = List.copyOf(fetches);
    targets = List.copyOf(targets);
    if (options == null) {
      options = RunOptions.DEFAULTS;
    }
  }

  public RunRequest(List<Output> feeds, List<Tensor> feedValues, List<Output> fetches, List<Operation> targets,
      long timeoutMillis) {
    this(feeds, feedValues, fetches, targets, RunOptions.DEFAULTS.withTimeoutMillis(timeoutMillis));
  }

  public long timeoutMillis() {
    return options.timeoutMillis();
  }
}
