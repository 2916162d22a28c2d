package dev.psflow.train;

import dev.psflow.graph.Operation;

/**
 * Chooses the ps task of each variable op a {@link ReplicaDeviceSetter} places: one method. psflow
 * ships {@link GreedyLoadBalancingStrategy} (by bytes, the setter's default) and
 * {@link RoundRobinStrategy} (TensorFlow's default); {@link #named} picks one by its flag value.
 */
@FunctionalInterface
public interface PsStrategy {
  /** The flag values {@link #named} knows: {@code greedy} and {@code round_robin}. */
  String GREEDY = "greedy";
  String ROUND_ROBIN = "round_robin";

  /** The ps task index for {@code op}; called once per variable op, in graph construction order. */
  int taskFor(Operation op);

  /** A fresh strategy over {@code numTasks} ps tasks by its flag value ({@code --ps_strategy}). */
  static PsStrategy named(String name, int numTasks) {
    return switch (name) {
      case GREEDY -> new GreedyLoadBalancingStrategy(numTasks);
      case ROUND_ROBIN -> new RoundRobinStrategy(numTasks);
      default -> throw new IllegalArgumentException("--ps_strategy must be greedy or round_robin, got '" + name + "'");
    };
  }
}
