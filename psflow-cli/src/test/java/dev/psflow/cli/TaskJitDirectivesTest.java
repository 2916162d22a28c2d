package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TaskJitDirectivesTest {
  @Test
  void theJvmTakesTheTaskDirectives() throws Exception {
    assertThat(TaskJitDirectives.add()).as("HotSpot parsed %s and added its directives", TaskJitDirectives.RESOURCE)
        .isTrue();
    assertThat(diagnostic("compilerDirectivesPrint")).contains("dev/psflow/tensor/*.*", "*.*");
  }

  @AfterEach
  void clear() throws Exception {
    diagnostic("compilerDirectivesClear"); // leaves this JVM's other tests with the JIT's defaults
  }

  private static String diagnostic(String command) throws Exception {
    return String.valueOf(ManagementFactory.getPlatformMBeanServer().invoke(
        new ObjectName("com.sun.management:type=DiagnosticCommand"), command, new Object[] {new String[0]},
        new String[] {String[].class.getName()}));
  }
}
