package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefFiles;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `psflow explain --graph_def=FILE`: any graph a program wrote, not only the built-in programs. */
class ExplainGraphDefTest {
  @TempDir Path dir;

  private Graph usersGraph() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable w = tf.withDevice("/job:ps/task:0").variable("w", tf.zeros(Shape.of(784, 10), DType.FLOAT32));
    Output x = tf.withDevice("/job:worker/task:0").withName("x").placeholder(DType.FLOAT32, Shape.of(-1, 784));
    tf.withDevice("/job:worker/task:0").withName("logits").matMul(x, w);
    return g;
  }

  @Test
  void explainsAGraphAProgramWroteInBinaryOrText() throws Exception {
    for (String name : new String[] {"model.pb", "model.pbtxt"}) {
      Path file = dir.resolve(name);
      GraphDefFiles.write(usersGraph(), file);
      Out r = psflow("explain", "--graph_def=" + file, "--fetch=logits:0", "--feed=x:0=100,784");
      assertThat(r.code()).as(r.text()).isZero();
      assertThat(r.text()).contains("One step of " + name + ", as run by /job:worker/replica:0/task:0's client")
          .contains("  feeds   x:0 [100,784]")
          .contains("/job:ps/task:0 — ")
          .containsPattern("w/read[^ ]*:0 +\\[784,10\\] +31,360  /job:ps/task:0 -> /job:worker/task:0");
    }
    assertThat(Files.readString(dir.resolve("model.pbtxt"))).contains("op: \"MatMul\"");
  }

  @Test
  void withoutFetchesItExplainsEveryOpNothingConsumesOnTheGivenCluster() throws Exception {
    Path file = dir.resolve("model.pb");
    GraphDefFiles.write(usersGraph(), file);
    Out r = psflow("explain", "--graph_def=" + file, "--ps_hosts=h:1", "--worker_hosts=h:2,h:3");
    assertThat(r.code()).as(r.text()).isZero();
    assertThat(r.text()).contains("  runs    logits (MatMul)");
  }

  @Test
  void aMissingFileOrUnknownTensorIsOneClearLine() throws Exception {
    Out missing = psflow("explain", "--graph_def=" + dir.resolve("nope.pb"));
    assertThat(missing.code()).isNotZero();
    assertThat(missing.text()).contains("no graph file").doesNotContain("\tat ");
    Path file = dir.resolve("model.pb");
    GraphDefFiles.write(usersGraph(), file);
    Out unknown = psflow("explain", "--graph_def=" + file, "--fetch=nope:0");
    assertThat(unknown.code()).isNotZero();
    assertThat(unknown.text()).contains("--fetch=nope:0").doesNotContain("\tat ");
    Out garbage = psflow("explain", "--graph_def=" + Files.writeString(dir.resolve("junk.pb"), "not a graph"));
    assertThat(garbage.code()).isNotZero();
    assertThat(garbage.text()).contains("junk.pb").doesNotContain("\tat ");
  }

  private record Out(int code, String text) {}

  private static Out psflow(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream both = new PrintStream(out, true, StandardCharsets.UTF_8);
    System.setOut(both);
    System.setErr(both);
    try {
      return new Out(Main.run(args), out.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }
}
