package dev.psflow.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each task's /metrics, scraped while one ps and two workers (Servers in this JVM, real gRPC on
 * 127.0.0.1) train a variable: the ps reports the staleness of the gradients it applied and its
 * RPCs by worker, each worker its calls to the ps; GetStatus says when each worker was last seen.
 */
class TaskMetricsTest {
  private static final String PS = "/job:ps/replica:0/task:0";
  private static final String WORKER_0 = "/job:worker/replica:0/task:0";
  private static final String WORKER_1 = "/job:worker/replica:0/task:1";

  private final List<Server> servers = new ArrayList<>();

  @BeforeEach
  void startCluster() {
    ClusterSpec cluster = FreePorts.localCluster(1, 2);
    ServerOptions withMetrics = ServerOptions.DEFAULTS.withMetricsPort(0);
    servers.add(Server.create(cluster, "ps", 0, withMetrics));
    servers.add(Server.create(cluster, "worker", 0, withMetrics));
    servers.add(Server.create(cluster, "worker", 1, withMetrics));
  }

  @AfterEach
  void stopCluster() {
    servers.forEach(Server::stop);
  }

  @Test
  void metricsAreOffUnlessAPortIsGiven() {
    try (Server s = Server.create(FreePorts.localCluster(1, 1), "ps", 0)) {
      assertThat(s.metricsPort()).isEqualTo(-1);
      assertThat(s.worker().metrics()).isNull();
    }
  }

  @Test
  void aScrapeDuringTrainingShowsStalenessPerPeerBytesAndSync() throws Exception {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Ops ps = tf.withDevice("/job:ps/task:0");
    Variable step = ps.variable("global_step", Tensor.scalar(0L), false);
    Variable w = ps.variable("w", tf.constant(new float[] {1, 2}));
    Output acc = ps.conditionalAccumulator(DType.FLOAT32, Shape.of(2), "grad_acc");
    Output tokens = ps.fifoQueue(List.of(DType.INT64), List.of(Shape.scalar()), -1, "sync_token_q");
    Operation init = tf.globalVariablesInitializer();
    List<Operation> train = new ArrayList<>();
    for (int task = 0; task < 2; task++) {
      Ops worker = tf.withDevice("/job:worker/task:" + task);
      Output grad = worker.constant(new float[] {0.1f, 0.1f});
      Operation apply = worker.resourceApplyGradientDescent(w, worker.constant(0.5f), grad, false);
      Operation accumulate = worker.accumulatorApplyGradient(acc, worker.constant(0L), grad);
      Operation enqueue = worker.queueEnqueue(tokens, List.of(worker.constant(0L)));
      train.add(worker.withControlDependencies(apply, accumulate, enqueue).assignAdd(step, worker.constant(1L)));
    }
    try (Session s0 = Session.open(g, servers.get(1).target()); Session s1 = Session.open(g, servers.get(2).target())) {
      s0.runner().addTarget(init).run();
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        Future<?> a = pool.submit(() -> repeat(s0, train.get(0), 20));
        Future<?> b = pool.submit(() -> repeat(s1, train.get(1), 20));
        a.get();
        b.get();
      } finally {
        pool.shutdown();
      }
      String psScrape = scrape(servers.get(0));
      assertThat(value(psScrape, "psflow_gradient_staleness_count{at=\"apply\"}")).isEqualTo(40);
      assertThat(value(psScrape, "psflow_gradient_staleness_count{at=\"accumulator\"}")).isEqualTo(40);
      assertThat(value(psScrape, "psflow_sync_gradients_accumulated_total")).isEqualTo(40);
      assertThat(value(psScrape, "psflow_sync_gradients_dropped_total")).isZero();
      assertThat(value(psScrape, "psflow_sync_queue_tokens{queue=\"sync_token_q\"}")).isEqualTo(40);
      assertThat(value(psScrape, "psflow_sync_accumulator_gradients{accumulator=\"grad_acc\"}")).isEqualTo(40);
      assertThat(value(psScrape, "psflow_global_step")).isEqualTo(40);
      assertThat(value(psScrape, "psflow_steps_total{role=\"ps\"}")).isGreaterThanOrEqualTo(40);
      assertThat(psScrape).contains("jvm_memory_used_bytes").contains("process_cpu_seconds_total");
      for (String worker : List.of(WORKER_0, WORKER_1)) {
        assertThat(value(psScrape, "psflow_rpc_received_bytes_total{method=\"RunGraph\",peer=\"" + worker
            + "\",side=\"server\"}")).as("RunGraph bytes the ps received from " + worker).isPositive();
      }
      String workerScrape = scrape(servers.get(1));
      assertThat(value(workerScrape, "psflow_rpc_sent_bytes_total{method=\"RunGraph\",peer=\"" + PS
          + "\",side=\"client\"}")).as("RunGraph bytes worker 0 sent the ps").isPositive();
      assertThat(workerScrape).contains("psflow_step_duration_seconds_bucket{role=\"worker\",le=\"+Inf\"}");

      WorkerClient.WorkerStatus status = servers.get(0).worker().status();
      assertThat(status.globalStep()).isEqualTo(40);
      assertThat(status.queues()).containsEntry("sync_token_q", 40);
      assertThat(status.replicas()).extracting(WorkerClient.ReplicaSeen::task).containsExactly(WORKER_0, WORKER_1);

      Promtool.check("the ps's /metrics", psScrape);
      Promtool.check("worker 0's /metrics", workerScrape);
    }
  }

  private static void repeat(Session s, Operation op, int times) {
    for (int i = 0; i < times; i++) {
      s.runner().addTarget(op).run();
    }
  }

  static String scrape(Server s) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.metricsPort()
          + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      return r.body();
    }
  }

  /** The value of the sample line that starts with {@code series}, or -1 when there is none. */
  static double value(String scrape, String series) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return -1;
  }
}
