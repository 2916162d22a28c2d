package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * psflow as a library in a JVM started without {@code --add-modules jdk.incubator.vector}, as a
 * user's {@code java -cp ...} runs it: a child JVM on this test's classpath trains with four
 * optimizers; the kernels fall back to plain Java and say so in exactly one warning line.
 */
class WithoutVectorModuleTest {
  private static final String WARNING = "jdk.incubator.vector is not in this JVM: psflow's kernels run in plain Java";

  @Test
  void trainsInPlainJavaAndWarnsOnce() throws Exception {
    String output = train(List.of());

    assertThat(output).doesNotContain("NoClassDefFoundError").contains("vector api available = false");
    assertThat(output.lines().filter(l -> l.contains(WARNING)).count()).as(output).isEqualTo(1);
    assertThat(output).contains("add --add-modules jdk.incubator.vector to the java command for full speed");
    Matcher m = Pattern.compile("(\\w+): loss ([\\d.]+) -> ([\\d.]+)").matcher(output);
    int optimizers = 0;
    while (m.find()) {
      optimizers++;
      assertThat(Double.parseDouble(m.group(3))).as(m.group()).isLessThan(Double.parseDouble(m.group(2)));
    }
    assertThat(optimizers).as(output).isEqualTo(4);
  }

  /**
   * A ps task's JVM (C1 only), with the module (as a user may start one) and without it (as
   * bin/psflow does): without C2 the Vector API's code would run as objects, so the kernels are
   * plain Java either way, and a missing module is nothing to warn about.
   */
  @Test
  void atC1OnlyTheKernelsArePlainJavaWithoutAWarning() throws Exception {
    for (List<String> module : List.of(List.of("--add-modules", "jdk.incubator.vector"), List.<String>of())) {
      List<String> flags = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1"));
      flags.addAll(module);
      String output = train(flags);

      assertThat(output).as(flags.toString()).contains("vector api available = false").doesNotContain(WARNING)
          .doesNotContain("NoClassDefFoundError");
      assertThat(Pattern.compile("(\\w+): loss ([\\d.]+) -> ([\\d.]+)").matcher(output).results().count())
          .as(output).isEqualTo(4);
    }
  }

  /**
   * {@link TrainWithoutVectorModule} in a child JVM on this test's class path with {@code jvmFlags};
   * its output (also kept in the test report), once it has exited with code 0.
   */
  private static String train(List<String> jvmFlags) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(jvmFlags);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), TrainWithoutVectorModule.class.getName()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes(); // returns when the child exits and closes its stdout
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child finished").isTrue();
    String output = new String(out, StandardCharsets.UTF_8);
    System.out.print(output);
    assertThat(p.exitValue()).as(cmd + "\n" + output).isZero();
    return output;
  }
}
