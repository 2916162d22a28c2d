package dev.psflow.cli;

import dev.psflow.distributed.Explanation;
import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.exec.Partition;
import dev.psflow.graph.Operation;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * In-graph replication as the master places it: each tower's forward and backward pass on its own
 * worker, the averaging and the applies on the ps, and between them only parameters and gradients.
 */
class InGraphReplicaExplainTest {
  static final String PS0 = "/job:ps/task:0";
  static final String PS1 = "/job:ps/task:1";
  static final String W0 = "/job:worker/task:0";
  static final String W1 = "/job:worker/task:1";
  static final String W2 = "/job:worker/task:2";
  /** The variables' shapes with --hidden_units=100: hid_w, hid_b, sm_w, sm_b. */
  static final Set<String> VARIABLE_SHAPES = Set.of("[784,100]", "[100]", "[100,10]", "[10]");
  static final long PARAMETER_BYTES = 4L * (784 * 100 + 100 + 100 * 10 + 10);

  private static Explanation explain(String... flags) {
    InGraphReplicaCommand command = new InGraphReplicaCommand();
    new CommandLine(command).parseArgs(flags);
    return Explanation.of(command.describeStep());
  }

  /** "gradients_1/tower_1/MatMul_grad/MatMul_1" → 1; "tower_2/Relu" → 2; "Adam/..." → -1. */
  private static int tower(String opName) {
    Matcher m = Pattern.compile("^(?:gradients(?:_\\d+)?/)?tower_(\\d+)/").matcher(opName);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  @Test
  void eachTowersForwardAndBackwardPassRunOnItsOwnWorker() {
    Explanation e = explain("--ps_hosts=h:1", "--worker_hosts=h:2,h:3,h:4");
    Set<Integer> towersWithBackwardOps = new java.util.TreeSet<>();
    for (Partition p : e.partitions()) {
      String task = Explanation.task(p.device());
      for (Operation op : p.graph().operations()) {
        int t = tower(op.name());
        if (t >= 0) {
          assertThat(task).as(op.name()).isEqualTo("/job:worker/task:" + t);
          if (op.name().startsWith("gradients")) {
            towersWithBackwardOps.add(t);
          }
        } else if (!op.type().equals("_Send") && !op.type().equals("_Recv") && !op.name().startsWith("_feed_")) {
          assertThat(task).as(op.name() + ": the variables, their averages and updates").isEqualTo(PS0);
        }
      }
    }
    assertThat(towersWithBackwardOps).containsExactly(0, 1, 2);
  }

  @Test
  void onlyParametersAndGradientsCrossBetweenTheWorkersAndThePs() {
    Explanation e = explain("--ps_hosts=h:1,h:2", "--worker_hosts=h:3,h:4");
    long toPs = 0;
    long fromPs = 0;
    for (Explanation.Crossing c : e.crossings()) {
      if (c.from().startsWith("/job:ps") && c.to().startsWith("/job:ps")) {
        // Adam's shared β powers, and the control edges that order their update after the applies
        assertThat(c.bytes()).as(c.tensor()).isLessThanOrEqualTo(4);
        continue;
      }
      assertThat(c.shape().toString()).as(c.tensor()).isIn(VARIABLE_SHAPES);
      if (c.to().startsWith("/job:ps")) {
        // one gradient of each variable from each tower, computed on that tower's worker
        assertThat(c.tensor()).matches("gradients(_\\d+)?/tower_\\d+/.*_grad/.*");
        assertThat(c.from()).isEqualTo("/job:worker/task:" + tower(c.tensor()));
        toPs += c.bytes();
      } else {
        assertThat(c.tensor()).matches("(hid|sm)_[wb]/read:0");
        assertThat(c.from()).isIn(PS0, PS1);
        fromPs += c.bytes();
      }
    }
    assertThat(toPs).isEqualTo(2 * PARAMETER_BYTES);
    assertThat(fromPs).isEqualTo(2 * PARAMETER_BYTES);
    // The client sends tower 1 its batch with each RunGraph; tower 0's stays on the client's task.
    assertThat(e.fedToOtherTasks()).extracting(Explanation.Crossing::tensor, Explanation.Crossing::to)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("tower_1/x:0", W1),
            org.assertj.core.groups.Tuple.tuple("tower_1/y_:0", W1));
  }

  @Test
  void explainInGraphReplicaShowsEachTowersBackwardPassOnItsOwnWorker() {
    String out = PsflowInJvm.stdout("explain", "in-graph-replica", "--worker_hosts=localhost:2223,localhost:2224,localhost:2225");
    Map<String, String> sections = sectionsByTask(out);
    assertThat(sections.keySet()).containsExactly(PS0, W0, W1, W2);
    for (int i = 0; i < 3; i++) {
      String worker = sections.get("/job:worker/task:" + i);
      String grads = i == 0 ? "gradients/tower_0/" : "gradients_" + i + "/tower_" + i + "/";
      assertThat(worker).as("worker " + i)
          .contains("tower_" + i + "/MatMul, tower_" + i + "/MatMul_1, " + grads + "MatMul_1_grad/MatMul")
          .containsPattern("ReluGrad ×1 +" + grads + "Relu_grad/ReluGrad")
          .doesNotContain("tower_" + ((i + 1) % 3) + "/");
    }
    assertThat(sections.get(PS0)).contains("ResourceApplyAdam ×4").contains("AddN ×4").doesNotContain("_grad/");
    assertThat(out)
        .containsPattern("gradients_2/tower_2/MatMul_grad/MatMul_1:0 +\\[784,100\\] +313,600  " + W2 + " -> " + PS0)
        .contains("Fed by the client, sent in the RunGraph request of the task that uses them:")
        .containsPattern("tower_2/x:0 +\\[100,784\\] +313,600  " + W0 + " -> " + W2)
        .containsPattern("worker -> ps +954,120");
  }

  /** The lines of each "/job:x/task:i — n ops" section of explain's output, by task. */
  private static Map<String, String> sectionsByTask(String out) {
    Map<String, String> sections = new java.util.LinkedHashMap<>();
    String current = null;
    for (String line : out.lines().toList()) {
      Matcher m = Pattern.compile("^(/job:\\w+/task:\\d+) — \\d+ ops$").matcher(line);
      if (m.matches()) {
        current = m.group(1);
        sections.put(current, "");
      } else if (line.isEmpty()) {
        current = null;
      } else if (current != null) {
        sections.merge(current, line + "\n", String::concat);
      }
    }
    return sections;
  }
}
