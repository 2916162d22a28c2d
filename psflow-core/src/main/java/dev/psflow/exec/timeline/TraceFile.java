package dev.psflow.exec.timeline;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A Chrome trace file ({@code {"traceEvents":[...]}}) that several processes of one run add to:
 * each worker of a cluster writes its steps' events into the same file, under an exclusive file
 * lock, so the file always holds one valid JSON document with every task's row. A file last written
 * before {@code sinceMillis} (a previous run's) is replaced instead of added to. Thread-safe, and
 * safe across processes of one machine (file locks); tasks on different machines each write their
 * own file.
 *
 * <pre>{@code
 * TraceFile.write(Path.of("trace.json"), timeline.events(), jvmStartMillis);
 * }</pre>
 */
public final class TraceFile {
  private static final String HEAD = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  private static final String TAIL = "\n]}\n";
  private static final ReentrantLock IN_THIS_JVM = new ReentrantLock();

  private TraceFile() {}

  /** The events as one JSON document, in the shape {@link #write} keeps. */
  static String document(List<String> events) {
    return HEAD + String.join(",\n", events) + TAIL;
  }

  /**
   * Adds {@code events} to {@code file}, creating it (and its directory) if needed; starts the file
   * afresh when it was last written before {@code sinceMillis} or is not one this class wrote.
   */
  public static void write(Path file, List<String> events, long sinceMillis) throws IOException {
    if (events.isEmpty()) {
      return;
    }
    Path dir = file.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    // A file lock keeps other processes out; this JVM's own writers (in-process tasks) queue here first,
    // as a second lock on the same file from one JVM would throw OverlappingFileLockException.
    IN_THIS_JVM.lock();
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE); FileLock lock = ch.lock()) {
      long size = ch.size();
      boolean add = size > HEAD.length() + TAIL.length()
          && Files.getLastModifiedTime(file).toMillis() >= sinceMillis && endsWithTail(ch, size);
      String text;
      if (add) {
        ch.truncate(size - TAIL.length());
        ch.position(size - TAIL.length());
        text = ",\n" + String.join(",\n", events) + TAIL;
      } else {
        ch.truncate(0);
        ch.position(0);
        text = document(events);
      }
      ByteBuffer buf = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(false);
    } finally {
      IN_THIS_JVM.unlock();
    }
  }

  private static boolean endsWithTail(FileChannel ch, long size) throws IOException {
    ByteBuffer tail = ByteBuffer.allocate(TAIL.length());
    ch.read(tail, size - TAIL.length());
    return new String(tail.array(), StandardCharsets.UTF_8).equals(TAIL);
  }
}
