package dev.psflow.cluster;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonSyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code TF_CONFIG} convention, the one environment variable psflow honours:
 * {@code {"cluster": {"ps": ["h:2222"], "worker": [...]}, "task": {"type": "worker", "index": 0}}}.
 * Keys other than "cluster" and "task" (Kubeflow's training operator adds
 * {@code "environment": "cloud"}) are ignored. Immutable.
 *
 * <p>TensorFlow's estimator convention names the chief as a job of its own, {@code "chief"} (or
 * the older {@code "master"}), beside the workers; psflow's programs know one job of training
 * replicas, {@code worker}, whose task 0 is the chief. {@link #withChiefAsWorkerZero()} maps the
 * one to the other.
 *
 * <pre>{@code
 * TfConfig c = TfConfig.parse(System.getenv("TF_CONFIG")).withChiefAsWorkerZero();
 * Server s = Server.create(c.cluster(), c.taskType(), c.taskIndex());
 * }</pre>
 *
 * @param cluster the cluster spec
 * @param taskType the job of this process, or null when TF_CONFIG has no "task"
 * @param taskIndex the index of this process's task, or -1
 */
public record TfConfig(ClusterSpec cluster, String taskType, int taskIndex) {
  /** Parses TF_CONFIG's JSON; errors say which key is missing or malformed. */
  public static TfConfig parse(String json) {
    JsonObject root;
    try {
      JsonElement e = JsonParser.parseString(json);
      if (!e.isJsonObject()) {
        throw new IllegalArgumentException("TF_CONFIG must be a JSON object, got: " + abbreviate(json));
      }
      root = e.getAsJsonObject();
    } catch (JsonSyntaxException e) {
      throw new IllegalArgumentException("TF_CONFIG is not valid JSON (" + e.getMessage() + ")");
    }
    if (!root.has("cluster") || !root.get("cluster").isJsonObject()) {
      throw new IllegalArgumentException("TF_CONFIG has no \"cluster\" object mapping job names to host:port lists");
    }
    Map<String, List<String>> jobs = new LinkedHashMap<>();
    for (Map.Entry<String, JsonElement> job : root.getAsJsonObject("cluster").entrySet()) {
      if (!job.getValue().isJsonArray()) {
        throw new IllegalArgumentException("TF_CONFIG cluster job '" + job.getKey() + "' must be a list of host:port strings");
      }
      List<String> tasks = new ArrayList<>();
      job.getValue().getAsJsonArray().forEach(t -> tasks.add(t.isJsonPrimitive() ? t.getAsString() : String.valueOf(t)));
      jobs.put(job.getKey(), tasks);
    }
    ClusterSpec cluster = ClusterSpec.of(jobs);
    if (!root.has("task")) {
      return new TfConfig(cluster, null, -1);
    }
    JsonObject task = root.getAsJsonObject("task");
    if (!task.has("type") || !task.has("index")) {
      throw new IllegalArgumentException("TF_CONFIG \"task\" needs \"type\" and \"index\"");
    }
    String type = task.get("type").getAsString();
    int index;
    try {
      index = task.get("index").getAsInt();
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("TF_CONFIG task index must be a number, got " + task.get("index"));
    }
    cluster.address(type, index); // the task must exist
    return new TfConfig(cluster, type, index);
  }

  /**
   * This config with TensorFlow's separate chief job folded into the workers: the chief (job
   * {@code chief} or {@code master}, one task) becomes {@code worker} task 0 and worker {@code i}
   * becomes worker {@code i + 1}; this process's task is renumbered alike. Every process of a
   * cluster must see the same numbering, so every psflow program that reads TF_CONFIG calls this.
   * Unchanged when there is no chief job.
   */
  public TfConfig withChiefAsWorkerZero() {
    Map<String, List<String>> jobs = new LinkedHashMap<>(cluster.asMap());
    String chiefJob = jobs.containsKey("chief") ? "chief" : jobs.containsKey("master") ? "master" : null;
    if (chiefJob == null) {
      return this;
    }
    if (jobs.containsKey("chief") && jobs.containsKey("master")) {
      throw new IllegalArgumentException("TF_CONFIG has both a \"chief\" and a \"master\" job: give one chief");
    }
    List<String> chief = jobs.remove(chiefJob);
    if (chief.size() != 1) {
      throw new IllegalArgumentException("TF_CONFIG job '" + chiefJob + "' has " + chief.size() + " tasks: the chief is one task");
    }
    List<String> workers = new ArrayList<>(chief);
    workers.addAll(jobs.getOrDefault("worker", List.of()));
    jobs.put("worker", workers);
    String type = taskType;
    int index = taskIndex;
    if (chiefJob.equals(taskType)) {
      type = "worker";
      index = 0;
    } else if ("worker".equals(taskType)) {
      index = taskIndex + 1;
    }
    return new TfConfig(ClusterSpec.of(jobs), type, index);
  }

  private static String abbreviate(String s) {
    return s.length() > 60 ? s.substring(0, 60) + "..." : s;
  }
}
