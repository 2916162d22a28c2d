package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/** gRPC's per-call counters are counted without a stack walk for the caller, once the transport is loaded. */
class CallCountersTest {
  @Test
  @SuppressWarnings("deprecation") // isAccessible: whether the method skips the caller check
  void grpcsCountingMethodIsAccessibleOnceTheTransportIsLoaded() throws Exception {
    Class.forName(GrpcTransport.class.getName(), true, CallCountersTest.class.getClassLoader());
    Field add = Class.forName("io.grpc.internal.ReflectionLongAdderCounter").getDeclaredField("addMethod");
    add.setAccessible(true);
    Method counting = (Method) add.get(null);
    assertThat(counting.getDeclaringClass().getName()).isEqualTo("java.util.concurrent.atomic.LongAdder");
    assertThat(counting.isAccessible()).isTrue();
    assertThat(CallCounters.skipCallerChecks()).isTrue();
  }
}
