package dev.psflow.cli;

import dev.psflow.tensor.VectorSupport;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells HotSpot to compile only the numeric kernels with C2 in a process that serves a cluster
 * task (a ps, a worker, a chief): the kernels of {@code dev.psflow.tensor} and {@code
 * dev.psflow.ops}, the input pipeline's copies and the Vector API. The rest (gRPC, Netty,
 * protobuf, the executor, and Send/Recv, whose kernels call straight into gRPC) stops at C1's
 * optimized tier. The directives are {@code task-jit-directives.json} beside this class.
 *
 * <p>Why: three task JVMs on two cores spent about half their CPU in C2 during a 6000-step async
 * job (about 13 s each, by async-profiler), compiling transport code whose deep call trees C2
 * inlines whole, and that CPU came out of training. C1 compiles the same code for a fraction of
 * the cost: a 2000-step async job ran 1.4× faster on a quarter less CPU, and a 10,000-step one
 * still faster (docs/benchmarks.md, "Warm-up: which code C2 compiles"). A program alone ({@code psflow mnist}) keeps C2
 * everywhere: it has a core to spare for compiling and its executor runs faster for it.
 *
 * <p>Added at run time through the JVM's diagnostic command (as {@code jcmd
 * Compiler.directives_add} does), so that one set of JVM flags serves every command. Failing to
 * add them costs speed only, never the run: it is logged at debug level. {@code
 * -Dpsflow.task_jit_directives=false} leaves them out, to measure a task without them.
 */
final class TaskJitDirectives {
  private static final Logger log = LoggerFactory.getLogger(TaskJitDirectives.class);
  static final String RESOURCE = "task-jit-directives.json";

  private TaskJitDirectives() {}

  /** Adds the directives; returns whether the JVM took them. */
  static boolean add() {
    // They only keep code from C2: a JVM without it (a ps task) saves the MBean server's 0.3 s.
    if (!Boolean.parseBoolean(System.getProperty("psflow.task_jit_directives", "true"))
        || !VectorSupport.C2_COMPILES) {
      return false;
    }
    Path file = null;
    try (InputStream in = TaskJitDirectives.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return false;
      }
      file = Files.createTempFile("psflow-jit-", ".json");
      Files.write(file, in.readAllBytes());
      Object out = ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesAdd",
          new Object[] {new String[] {file.toString()}}, new String[] {String[].class.getName()});
      String said = String.valueOf(out).strip();
      log.debug("compiler directives for a task: {}", said);
      return said.matches("(?s).*\\b[1-9]\\d* compiler directives added.*");
    } catch (Exception | LinkageError e) {
      log.debug("compiler directives for a task not added: {}", e.toString());
      return false;
    } finally {
      if (file != null) {
        try {
          Files.deleteIfExists(file);
        } catch (IOException ignored) {
          // a temporary file of a few hundred bytes; the JVM read it already
        }
      }
    }
  }
}
