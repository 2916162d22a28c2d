package dev.psflow.exec;

import dev.psflow.graph.Output;
import dev.psflow.tensor.Tensor;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Checks fed values against the tensors they replace, with messages that name both sides. */
public final class FeedChecks {
  private FeedChecks() {}

  /** Throws INVALID_ARGUMENT when a value's dtype or shape cannot stand for its tensor, or a tensor is fed twice. */
  public static void check(List<Output> feeds, List<Tensor> values) {
    if (values.size() != feeds.size()) {
      throw StatusException.invalidArgument("expected " + feeds.size() + " fed tensor" + (feeds.size() == 1 ? "" : "s")
          + " (" + String.join(", ", feeds.stream().limit(10).map(Output::name).toList())
          + (feeds.size() > 10 ? ", ..." : "") + "), got " + values.size());
    }
    Set<Output> seen = new HashSet<>();
    for (int i = 0; i < feeds.size(); i++) {
      Output o = feeds.get(i);
      Tensor v = values.get(i);
      if (!seen.add(o)) {
        throw StatusException.invalidArgument("tensor " + o.name() + " is fed twice");
      }
      if (v.dtype() != o.dtype()) {
        throw StatusException.invalidArgument(
            "cannot feed a " + v.dtype() + " value to tensor " + o.name() + ", which has dtype " + o.dtype());
      }
      if (!o.shape().isCompatibleWith(v.shape())) {
        throw StatusException.invalidArgument(
            "cannot feed a value of shape " + v.shape() + " to tensor " + o.name() + ", which has shape " + o.shape());
      }
    }
  }
}
