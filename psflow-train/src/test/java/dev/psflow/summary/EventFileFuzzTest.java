package dev.psflow.summary;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.psflow.proto.summary.Event;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzzes the event-file reader (TFRecord framing, then an Event protobuf per record): any file
 * either reads or fails with an IOException (EOFException for a truncated record,
 * CorruptRecordException for a CRC mismatch, InvalidProtocolBufferException for a record that is
 * no Event); no RuntimeException, no OutOfMemoryError from a declared length, no hang.
 * {@link #readFile} takes the file as the fuzzer gives it, whose CRCs almost never match;
 * {@link #readRecords} frames fuzzed payloads with correct CRCs, so the Event decoding behind them
 * is fuzzed too. Corpora: {@code src/test/resources/dev/psflow/summary/EventFileFuzzTestInputs/}.
 */
class EventFileFuzzTest {
  private static final Path FILE;

  static {
    try {
      Path dir = Files.createTempDirectory("psflow-fuzz-events");
      dir.toFile().deleteOnExit();
      FILE = dir.resolve("events.out.tfevents.fuzz");
      FILE.toFile().deleteOnExit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void readFile(byte[] bytes) throws IOException {
    Files.write(FILE, bytes);
    readAndCheck();
  }

  /**
   * The input as records, each framed with correct CRCs: a 2-byte little-endian length, then that
   * many bytes of payload (fewer at the end of the input).
   */
  @FuzzTest(maxDuration = "5m")
  void readRecords(byte[] bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i + 2 <= bytes.length; ) {
      int length = Math.min((bytes[i] & 0xff) | (bytes[i + 1] & 0xff) << 8, bytes.length - i - 2);
      TfRecord.write(out, Arrays.copyOfRange(bytes, i + 2, i + 2 + length));
      i += 2 + length;
    }
    Files.write(FILE, out.toByteArray());
    readAndCheck();
  }

  private static void readAndCheck() {
    try {
      List<Event> events = EventFileReader.readAll(FILE);
      for (Event e : events) {
        assertThat(Event.parseFrom(e.toByteArray())).isEqualTo(e);
      }
    } catch (IOException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
  }
}
