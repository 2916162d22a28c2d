package dev.psflow.bench;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.cluster.TlsConfig;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.ServerLimits;
import dev.psflow.distributed.ServerOptions;
import dev.psflow.distributed.Worker;
import dev.psflow.distributed.certs.ClusterCertificates;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.sendrecv.Recv;
import dev.psflow.ops.sendrecv.Send;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * One large float tensor pulled from a ps by a worker over loopback, as RecvTensor carries it
 * between tasks: a ps process and a worker process (separate JVMs, so each side's memory is its
 * own), each a psflow {@link Server} with its limits and, with {@code --tls}, mutual TLS. The ps
 * sends the tensor in {@code --runs} steps (the same array each time, as a variable's value would
 * be); the worker runs a partition that receives it, once per step. Reported per pull: seconds,
 * GB/s (10^9 bytes/s), the worker's CPU time (all its threads) and so GB per CPU-second (what the
 * transfer would reach with a core to itself on each side: the figure to read on a busy machine),
 * the CRC32C of the bytes on each side, and, for the first pull, the worker's peak extra resident
 * memory (VmHWM, reset before the pull, minus VmRSS then; later pulls reuse heap pages already
 * resident). The ps reports its peak extra memory and CPU time over all pulls. Both sides allow the tensor through {@code max_tensor_bytes} (the default, a
 * quarter of the heap, would not take 3 GiB in an 8 GiB heap). Linux only (/proc/self).
 *
 * <p>Run: {@code java -cp psflow-bench/target/psflow-bench.jar dev.psflow.bench.BigTensorBench
 * [--mib=1024] [--runs=3] [--tls]}
 */
public final class BigTensorBench {
  private static final String PS = "/job:ps/replica:0/task:0/device:CPU:0";
  private static final String WORKER = "/job:worker/replica:0/task:0/device:CPU:0";

  private BigTensorBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && (args[0].equals("ps") || args[0].equals("worker"))) {
      task(args);
      return;
    }
    long mib = 1024;
    int runs = 3;
    boolean tls = false;
    for (String a : args) {
      if (a.startsWith("--mib=")) {
        mib = Long.parseLong(a.substring(6));
      } else if (a.startsWith("--runs=")) {
        runs = Integer.parseInt(a.substring(7));
      } else if (a.equals("--tls")) {
        tls = true;
      } else {
        throw new IllegalArgumentException("unknown flag " + a + "; flags: --mib=N --runs=N --tls");
      }
    }
    List<Integer> ports = FreePorts.pick(2);
    String hosts = "127.0.0.1:" + ports.get(0) + " 127.0.0.1:" + ports.get(1);
    String certs = "-";
    if (tls) {
      Path dir = Files.createTempDirectory("bigtensor-certs");
      ClusterCertificates.write(cluster(hosts), dir.resolve("c"), Duration.ofDays(1));
      certs = dir.resolve("c").toString();
    }
    System.out.printf(Locale.ROOT, "BigTensorBench: %d MiB of float32 from ps to worker, %d pulls, %s%n", mib, runs,
        tls ? "mutual TLS" : "plaintext");
    Process ps = start("ps", hosts, mib, runs, certs);
    BufferedReader psOut = new BufferedReader(new InputStreamReader(ps.getInputStream(), StandardCharsets.UTF_8));
    for (String line; (line = psOut.readLine()) != null; ) {
      System.out.println("[ps] " + line);
      if (line.startsWith("ready")) {
        break;
      }
    }
    Process worker = start("worker", hosts, mib, runs, certs);
    PrintStream toPs = new PrintStream(ps.getOutputStream(), true, StandardCharsets.UTF_8);
    BufferedReader workerOut = new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8));
    for (String line; (line = workerOut.readLine()) != null; ) {
      System.out.println("[worker] " + line);
      if (line.startsWith("pull 1:")) {
        toPs.println("warm"); // the ps counts its CPU from here too: the first pull compiles the code
      }
    }
    int rc = worker.waitFor();
    toPs.println("done");
    toPs.close();
    psOut.lines().forEach(l -> System.out.println("[ps] " + l));
    ps.waitFor();
    if (rc != 0) {
      System.exit(rc);
    }
  }

  private static Process start(String role, String hosts, long mib, int runs, String certs) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    long heapMib = mib + 2048;
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + heapMib + "m", "-XX:+UseParallelGC", "-Xmn32m",
        "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-cp", System.getProperty("java.class.path"), BigTensorBench.class.getName(),
        role, hosts, Long.toString(mib), Integer.toString(runs), certs));
    return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

  private static ClusterSpec cluster(String hosts) {
    String[] h = hosts.split(" ");
    return ClusterSpec.fromFlags(h[0], h[1]);
  }

  /** A task's process: {@code ps|worker hosts mib runs certs}. */
  private static void task(String[] a) throws Exception {
    ClusterSpec cluster = cluster(a[1]);
    long bytes = Long.parseLong(a[2]) << 20;
    int runs = Integer.parseInt(a[3]);
    String job = a[0];
    int n = Math.toIntExact(bytes / 4);
    ServerOptions options = ServerOptions.DEFAULTS.withLimits(ServerLimits.DEFAULTS.withMaxTensorBytes(bytes)
        .withAbandonedStep(Duration.ofMinutes(30)));
    if (!a[4].equals("-")) {
      options = options.withTls(TlsConfig.forTask(Path.of(a[4]), job, 0));
    }
    Server server = Server.create(cluster, job, 0, options);
    try {
      if (job.equals("ps")) {
        servePs(server.worker(), n, runs);
      } else {
        pull(server.worker(), n, runs);
      }
    } finally {
      server.stop();
    }
  }

  /** Sends the tensor in steps 1..runs, then waits for "done" and reports its peak extra memory meanwhile. */
  private static void servePs(Worker ps, int n, int runs) throws IOException {
    float[] data = new float[n];
    SplittableRandom r = new SplittableRandom(42);
    for (int i = 0; i < n; i++) {
      data[i] = (float) r.nextDouble(-1, 1);
    }
    Tensor t = Tensor.of(data, n);
    Graph g = new Graph();
    Output x = Ops.create(g).withDevice(PS).placeholder(DType.FLOAT32, Shape.of(n));
    g.opBuilder(Send.DEF, "send_x").addInput(x).setDevice(PS).setAttr("T", DType.FLOAT32)
        .setAttr("tensor_name", "x:0").setAttr("send_device", PS).setAttr("recv_device", WORKER).build();
    String handle = ps.registerGraph(RegisterGraphRequest.newBuilder().setSessionHandle("bench")
        .setGraphDef(GraphDefs.toProto(g)).addFeed(x.name()).build());
    for (int step = 1; step <= runs; step++) {
      ps.runGraph(handle, step, List.of(t), false).join(); // _Send never blocks: the tensor waits for its pull
    }
    System.gc();
    Memory.resetPeak();
    long rss = Memory.rss();
    System.out.printf(Locale.ROOT, "ready: crc32c %08x, resident %d MB with the tensor%n", crc(t), rss >> 20);
    long cpu = cpuNanos();
    long warm = -1;
    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String c; (c = commands.readLine()) != null && !c.equals("done"); ) {
      warm = cpuNanos();
    }
    long end = cpuNanos();
    System.out.printf(Locale.ROOT, "peak extra memory while serving the pulls: %d MB (the tensor: %d MB); "
        + "CPU %.2f s for %d pulls%s%n", (Memory.peak() - rss) >> 20, (4L * n) >> 20, (end - cpu) / 1e9, runs,
        warm < 0 || runs < 2 ? "" : String.format(Locale.ROOT, ", %.2f s for the %d after the first = %.2f GB per "
            + "CPU-second", (end - warm) / 1e9, runs - 1, 4.0 * n * (runs - 1) / ((end - warm) / 1e9) / 1e9));
  }

  private static void pull(Worker worker, int n, int runs) {
    Graph g = new Graph();
    Output x = g.opBuilder(Recv.DEF, "recv_x").setDevice(WORKER).setAttr("tensor_type", DType.FLOAT32)
        .setAttr("_shape", Shape.of(n)).setAttr("tensor_name", "x:0").setAttr("send_device", PS)
        .setAttr("recv_device", WORKER).build().output(0);
    String handle = worker.registerGraph(RegisterGraphRequest.newBuilder().setSessionHandle("bench")
        .setGraphDef(GraphDefs.toProto(g)).addFetch(x.name()).build());
    for (int step = 1; step <= runs; step++) {
      System.gc();
      Memory.resetPeak();
      long rss = Memory.rss();
      long cpu = cpuNanos();
      long start = System.nanoTime();
      Tensor got = worker.runGraph(handle, step, List.of(), false).join().fetches().get(0);
      double seconds = (System.nanoTime() - start) / 1e9;
      double cpuSeconds = (cpuNanos() - cpu) / 1e9;
      long peak = Memory.peak();
      long bytes = 4L * got.size();
      // after the first pull the heap's pages are resident already: only the first shows the receiver's extra memory
      String memory = step == 1 ? String.format(Locale.ROOT, ", peak extra memory %d MB (the tensor: %d MB)",
          (peak - rss) >> 20, bytes >> 20) : "";
      System.out.printf(Locale.ROOT, "pull %d: %d bytes in %.3f s = %.2f GB/s; CPU %.2f s = %.2f GB per CPU-second; "
          + "crc32c %08x%s%n", step, bytes, seconds, bytes / seconds / 1e9, cpuSeconds, bytes / cpuSeconds / 1e9,
          crc(got), memory);
    }
  }

  /** CPU time this process has used, all threads (the transport's included). */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** CRC32C of the tensor's little-endian bytes, as they cross the wire. */
  private static int crc(Tensor t) {
    float[] f = (float[]) t.data();
    CRC32C crc = new CRC32C();
    ByteBuffer b = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < f.length; ) {
      int m = Math.min(f.length - i, b.capacity() / 4);
      b.clear();
      b.asFloatBuffer().put(f, i, m);
      b.limit(m * 4);
      crc.update(b);
      i += m;
    }
    return (int) crc.getValue();
  }

  /** This process's resident memory from /proc/self (Linux). */
  private static final class Memory {
    static long rss() {
      return field("VmRSS:");
    }

    static long peak() {
      return field("VmHWM:");
    }

    /** Resets VmHWM to the current resident size (Linux 4.0+). */
    static void resetPeak() {
      try {
        Files.writeString(Path.of("/proc/self/clear_refs"), "5");
      } catch (IOException e) {
        throw new IllegalStateException("cannot reset the peak resident size (/proc/self/clear_refs): " + e.getMessage());
      }
    }

    private static long field(String name) {
      try {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
          if (line.startsWith(name)) {
            return Long.parseLong(line.substring(name.length()).trim().split("\\s+")[0]) << 10;
          }
        }
      } catch (IOException e) {
        throw new IllegalStateException("cannot read /proc/self/status: " + e.getMessage());
      }
      throw new IllegalStateException("/proc/self/status has no " + name);
    }
  }
}
