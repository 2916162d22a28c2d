package dev.psflow.tensor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Critical downcalls through the Foreign Function API, linked reflectively: calls into native code
 * that may read and write the Java heap ({@code Linker.Option.critical(true)}, JDK 22 and later), so
 * a kernel works on the arrays themselves with nothing copied ({@link HeapSgemm}, {@link
 * NativeKernels}).
 *
 * <p>The project compiles for Java 21, where {@code java.lang.foreign} is a preview API, so the
 * handles are built through reflection and typed with what Java 21 can name: a memory segment as
 * {@code Object}. A handle is called with {@code invokeExact} on segments that {@link #ofArray} and
 * {@link #asSlice} make of the arrays.
 *
 * <p>Every method throws where the JDK cannot link (before 22, or native access not enabled for this
 * code, where it would only print the JDK's restricted-method warning); callers fall back to Java.
 */
final class ForeignDowncalls {
  private static final ClassLoader JDK = ClassLoader.getPlatformClassLoader();

  private ForeignDowncalls() {}

  /**
   * Where {@link #link} finds symbols: the libraries this class's loader has loaded ({@code library}
   * null: OpenBLAS, which JavaCPP's {@code System.load} loaded), or the library file {@code library},
   * loaded for the life of the JVM. Throws where this JDK cannot make downcalls from psflow's code.
   */
  static Object symbols(Path library) throws ReflectiveOperationException {
    Object enabled = Module.class.getMethod("isNativeAccessEnabled").invoke(ForeignDowncalls.class.getModule());
    if (!Boolean.TRUE.equals(enabled)) {
      throw new IllegalStateException("native access is not enabled for psflow's code "
          + "(--enable-native-access=ALL-UNNAMED)");
    }
    Class<?> lookupClass = jdkClass("SymbolLookup");
    Class<?> arenaClass = jdkClass("Arena");
    return library == null
        ? lookupClass.getMethod("loaderLookup").invoke(null)
        : lookupClass.getMethod("libraryLookup", Path.class, arenaClass)
            .invoke(null, library, arenaClass.getMethod("global").invoke(null));
  }

  /**
   * A critical downcall to {@code symbol} in {@code symbols} ({@link #symbols}). {@code type}'s
   * parameters say the native ones: {@code int} a C {@code int32_t}, {@code float} a C {@code float},
   * {@code Object} a pointer (a segment); its return type is void. Empty where the symbol is not there.
   */
  static Optional<MethodHandle> link(Object symbols, String symbol, MethodType type)
      throws ReflectiveOperationException {
    Class<?> linkerClass = jdkClass("Linker");
    Class<?> optionClass = jdkClass("Linker$Option");
    Class<?> layoutClass = jdkClass("MemoryLayout");
    Class<?> valueLayoutClass = jdkClass("ValueLayout");
    Class<?> descriptorClass = jdkClass("FunctionDescriptor");
    Optional<?> address = (Optional<?>) jdkClass("SymbolLookup").getMethod("find", String.class)
        .invoke(symbols, symbol);
    if (address.isEmpty()) {
      return Optional.empty();
    }
    Object layouts = Array.newInstance(layoutClass, type.parameterCount());
    for (int x = 0; x < type.parameterCount(); x++) {
      Class<?> p = type.parameterType(x);
      String layout = p == int.class ? "JAVA_INT" : p == float.class ? "JAVA_FLOAT" : p == Object.class ? "ADDRESS" : null;
      if (layout == null) {
        throw new IllegalArgumentException("no native layout for " + p + " in " + type);
      }
      Array.set(layouts, x, valueLayoutClass.getField(layout).get(null));
    }
    Object descriptor = descriptorClass.getMethod("ofVoid", layouts.getClass()).invoke(null, layouts);
    Object options = Array.newInstance(optionClass, 1);
    Array.set(options, 0, optionClass.getMethod("critical", boolean.class).invoke(null, true));
    Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
    MethodHandle raw = (MethodHandle) linkerClass
        .getMethod("downcallHandle", jdkClass("MemorySegment"), descriptorClass, options.getClass())
        .invoke(linker, address.get(), descriptor, options);
    // only asType: combinators (collectArguments) spun ~40 ms more of lambda forms at start-up
    return Optional.of(raw.asType(type));
  }

  /** {@code MemorySegment.ofArray} of {@code arrayClass} ({@code float[]}, {@code byte[]}), as {@code (array) Object}. */
  static MethodHandle ofArray(Class<?> arrayClass) throws ReflectiveOperationException {
    Class<?> segment = jdkClass("MemorySegment");
    return MethodHandles.lookup().findStatic(segment, "ofArray", MethodType.methodType(segment, arrayClass))
        .asType(MethodType.methodType(Object.class, arrayClass));
  }

  /** {@code MemorySegment.asSlice(long)}, as {@code (Object, long) Object}. */
  static MethodHandle asSlice() throws ReflectiveOperationException {
    Class<?> segment = jdkClass("MemorySegment");
    return MethodHandles.lookup().findVirtual(segment, "asSlice", MethodType.methodType(segment, long.class))
        .asType(MethodType.methodType(Object.class, Object.class, long.class));
  }

  private static Class<?> jdkClass(String simpleName) throws ClassNotFoundException {
    return Class.forName("java.lang.foreign." + simpleName, false, JDK);
  }
}
