package dev.psflow.tensor;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import org.slf4j.LoggerFactory;

/**
 * Whether the JDK's Vector API ({@code jdk.incubator.vector}) is in this JVM, decided once. The
 * hot kernels (GEMM, the fused optimizer updates) have a vectorized form and a plain-Java form;
 * each asks {@link #AVAILABLE} once per call and runs the vectorized form only when it is true.
 *
 * <p>Why a flag rather than a try/catch: the module is an incubator module, absent unless the
 * JVM is started with {@code --add-modules jdk.incubator.vector}, and a class that names one of
 * its types fails with {@code NoClassDefFoundError} when it is linked. So the vectorized code
 * lives in classes of its own (GemmFloat, GemmDouble, GemmMicroKernel, GemmPacking,
 * {@link VectorDenormals}, the {@code Vectorized} classes nested in the Apply* ops) that are
 * reached only behind this flag; without the module the JVM never loads them. Being a static
 * final field, the flag costs the JIT-compiled kernels nothing.
 *
 * <p>Without the module psflow still works, several times slower in matrix products, and says so
 * once per JVM with one SLF4J warning when a kernel first asks, where C2 compiles (below: without
 * C2 the module would not be used, and bin/psflow starts its JVMs at C1 only without it).
 *
 * <p>The Vector API pays only where HotSpot's optimizing compiler (C2) compiles the kernels: C1
 * and the interpreter run every vector operation as an object, far slower than a plain loop. So a
 * JVM without C2 ({@code -XX:TieredStopAtLevel=1}, as psflow starts ps tasks, or {@code -Xint})
 * takes the plain-Java kernels even with the module present, quietly: that was asked for.
 *
 * <p>Thread-safety: immutable.
 *
 * <pre>{@code
 * if (VectorSupport.AVAILABLE) {
 *   GemmFloat.sgemm(...);   // names FloatVector
 * } else {
 *   GemmPlain.sgemm(...);   // plain Java
 * }
 * }</pre>
 */
public final class VectorSupport {
  /** The module's name, as given to {@code --add-modules}. */
  public static final String MODULE = "jdk.incubator.vector";

  /** Whether this JVM compiles hot code with C2: false at {@code -XX:TieredStopAtLevel} below 4 or without a JIT. */
  public static final boolean C2_COMPILES = c2Compiles();

  /**
   * True when {@code jdk.incubator.vector} is in the boot layer, so vector classes can link, and
   * C2 compiles them ({@link #C2_COMPILES}).
   */
  public static final boolean AVAILABLE = detect();

  private VectorSupport() {}

  private static boolean detect() {
    boolean present = ModuleLayer.boot().findModule(MODULE).isPresent();
    if (!present && C2_COMPILES) {
      LoggerFactory.getLogger(VectorSupport.class).warn(
          "{} is not in this JVM: psflow's kernels run in plain Java, several times slower; "
              + "add --add-modules {} to the java command for full speed", MODULE, MODULE);
    }
    return present && C2_COMPILES;
  }

  /** From HotSpot's own flags; true where they cannot be read (another JVM: assume an optimizing JIT). */
  private static boolean c2Compiles() {
    try {
      HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      if (vm == null) {
        return true;
      }
      if (!Boolean.parseBoolean(vm.getVMOption("UseCompiler").getValue())) {
        return false; // -Xint
      }
      return !Boolean.parseBoolean(vm.getVMOption("TieredCompilation").getValue())
          || Integer.parseInt(vm.getVMOption("TieredStopAtLevel").getValue()) >= 4;
    } catch (RuntimeException | LinkageError e) {
      return true;
    }
  }
}
