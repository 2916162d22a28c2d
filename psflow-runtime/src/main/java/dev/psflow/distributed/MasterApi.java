package dev.psflow.distributed;

import dev.psflow.exec.RunOptions;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.proto.GraphDef;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What a client session asks of a master: the same calls whether the master is in this process
 * ({@link Master} itself) or reached over the wire. Failures are StatusExceptions whose code and
 * message survive the trip.
 */
public interface MasterApi {
  /** Creates a session for {@code graph}; returns its handle. Waits for the tasks it needs. */
  String createSession(GraphDef graph, SessionOptions options);

  /** Adds the ops of {@code delta} (ops added since {@code currentVersion}); returns the new version. */
  long extendSession(String handle, GraphDef delta, long currentVersion);

  /**
   * Runs one step: feeds by tensor name, fetches by tensor name, targets by op name; the options'
   * trace level asks for every task's step statistics in the result's metadata.
   */
  CompletableFuture<Session.Run> runStep(String handle, List<String> feedNames, List<Tensor> feedValues,
      List<String> fetches, List<String> targets, RunOptions options);

  void closeSession(String handle);

  List<String> listDevices();

  /** Drops the resources of {@code containers} on every task the filters allow. */
  void reset(List<String> containers, List<String> deviceFilters);
}
