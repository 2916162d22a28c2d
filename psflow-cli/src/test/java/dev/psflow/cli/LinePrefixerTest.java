package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** local-cluster's relay of its tasks' output lines. */
class LinePrefixerTest {
  private final StringWriter printed = new StringWriter();
  // buffered as picocli's writers are: what was not flushed is not in `printed`
  private final PrintWriter out = new PrintWriter(new BufferedWriter(printed), true);
  private final LinePrefixer lines = new LinePrefixer(out, new PrintWriter(new StringWriter(), true));

  @Test
  @DisplayName("prints every line of a task's output with its prefix, all of it flushed once the output ends")
  void relaysEveryLineAndFlushesAtTheEnd() throws InterruptedException {
    String text = "step 1\nstep 2\nstep 3 has no newline";

    lines.pump("worker1", stream(text)).join();

    assertThat(printed.toString().lines())
        .containsExactly("[worker1] step 1", "[worker1] step 2", "[worker1] step 3 has no newline");
  }

  @Test
  @DisplayName("shows each line, without its prefix, to the listeners")
  void showsLinesToListeners() throws InterruptedException {
    List<String> seen = new CopyOnWriteArrayList<>();
    lines.onLine((task, line) -> seen.add(task + ": " + line));

    lines.pump("ps0", stream("a\nb\n")).join();

    assertThat(seen).containsExactly("ps0: a", "ps0: b");
  }

  @Test
  @DisplayName("a line is out as soon as the task has written nothing more, while the task still runs")
  void flushesALineWhenNothingMoreIsWaiting() throws IOException, InterruptedException {
    PipedOutputStream task = new PipedOutputStream();
    PipedInputStream in = new PipedInputStream(task);
    Thread pump = lines.pump("worker0", in);

    task.write("Training begins\n".getBytes(StandardCharsets.UTF_8));
    task.flush();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!printed.toString().contains("[worker0] Training begins") && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }

    assertThat(printed.toString()).contains("[worker0] Training begins");
    task.close();
    pump.join();
  }

  @Test
  @DisplayName("local-cluster's own notes are flushed at once")
  void notesAreFlushed() {
    lines.note("restarting worker1");

    assertThat(printed.toString()).isEqualTo("local-cluster: restarting worker1" + System.lineSeparator());
  }

  @Test
  @DisplayName("a line the task wrote in pieces comes out whole, a multi-byte character cut between them too")
  void joinsALineWrittenInPieces() throws IOException, InterruptedException {
    PipedOutputStream task = new PipedOutputStream();
    PipedInputStream in = new PipedInputStream(task);
    List<String> seen = new CopyOnWriteArrayList<>();
    lines.onLine((t, line) -> seen.add(line));
    Thread pump = lines.pump("worker0", in);
    byte[] text = "loss 0.5 \u2264 1\r\nnext\n".getBytes(StandardCharsets.UTF_8);
    int cut = "loss 0.5 ".length() + 1; // inside the three bytes of the character

    task.write(text, 0, cut);
    task.flush();
    Thread.sleep(50);
    task.write(text, cut, text.length - cut);
    task.close();
    pump.join();

    assertThat(printed.toString().lines()).containsExactly("[worker0] loss 0.5 \u2264 1", "[worker0] next");
    assertThat(seen).containsExactly("loss 0.5 \u2264 1", "next");
  }

  @Test
  @DisplayName("a line longer than the relay's buffer comes out whole")
  void relaysALongLineWhole() throws InterruptedException {
    String longLine = "x".repeat(200_000);

    lines.pump("ps0", stream("a\n" + longLine + "\nb\n")).join();

    assertThat(printed.toString().lines()).containsExactly("[ps0] a", "[ps0] " + longLine, "[ps0] b");
  }

  private static InputStream stream(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }
}
