package dev.psflow.ops.io;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Tensor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Reads and writes tensors in the <a href="https://huggingface.co/docs/safetensors">safetensors</a>
 * format: an 8-byte little-endian header length, a JSON header
 * {@code {"name": {"dtype": "F32", "shape": [784,100], "data_offsets": [begin, end]}, "__metadata__": {...}}}
 * padded with spaces to a multiple of 8 bytes, then each tensor's raw little-endian row-major bytes.
 * psflow checkpoints use it because any tool reads it without TensorFlow or psflow: numpy, PyTorch
 * and JAX through the {@code safetensors} package, or a dozen lines of any language (it is a length,
 * JSON and raw arrays), and it cannot run code when loaded, unlike pickles. Written files carry
 * {@code __metadata__.data_crc32c}, the CRC32C of the data section, which {@link #read} checks.
 *
 * <p>Writes are atomic ({@link AtomicFiles}). Failures are {@link StatusException}s naming the file:
 * NOT_FOUND, PERMISSION_DENIED, DATA_LOSS for a corrupt or truncated file, INTERNAL for other I/O
 * errors. Stateless and thread-safe.
 *
 * <pre>{@code
 * Safetensors.write(path, List.of("hid_w", "hid_b"), List.of(w, b), Map.of("producer", "psflow"));
 * List<Tensor> back = Safetensors.read(path, List.of("hid_b"));
 * }</pre>
 */
public final class Safetensors {
  /** The metadata key holding the data section's CRC32C as 8 lowercase hex digits. */
  public static final String CRC_KEY = "data_crc32c";
  /** The metadata key prefix of a tensor's chunk checksums: 8 hex digits per {@link #CHUNK_BYTES} piece, concatenated. */
  public static final String CHUNK_CRC_PREFIX = "chunk_crc32c/";
  /** The piece size of reads, writes and chunk checksums: a multiple of every element size, so no element straddles two. */
  public static final int CHUNK_BYTES = 1 << 20;

  static final List<String> DTYPE_NAMES = List.of("F32", "F64", "I32", "I64", "BOOL");
  private static final int CHUNK = CHUNK_BYTES;
  private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

  private Safetensors() {}

  /** The safetensors name of {@code t} ("F32", ...), or empty for the types the format cannot hold (strings, resources). */
  public static Optional<String> name(DType t) {
    return switch (t) {
      case FLOAT32 -> Optional.of("F32");
      case FLOAT64 -> Optional.of("F64");
      case INT32 -> Optional.of("I32");
      case INT64 -> Optional.of("I64");
      case BOOL -> Optional.of("BOOL");
      case STRING, RESOURCE -> Optional.empty();
    };
  }

  static String dtypeName(DType t) {
    return name(t).orElseThrow(() -> new IllegalArgumentException("safetensors cannot hold " + t + " tensors"));
  }

  /** The psflow type of a safetensors dtype name, or empty for those psflow has no type for (F16, BF16, U8...). */
  public static Optional<DType> dtypeOf(String name) {
    return switch (name) {
      case "F32" -> Optional.of(DType.FLOAT32);
      case "F64" -> Optional.of(DType.FLOAT64);
      case "I32" -> Optional.of(DType.INT32);
      case "I64" -> Optional.of(DType.INT64);
      case "BOOL" -> Optional.of(DType.BOOL);
      default -> Optional.empty();
    };
  }

  /** Writes {@code tensors} under {@code names} (in that order) to {@code file}, atomically. */
  public static void write(Path file, List<String> names, List<Tensor> tensors, Map<String, String> metadata) {
    checkNames(names, tensors);
    JsonObject meta = new JsonObject();
    metadata.forEach(meta::addProperty);
    meta.addProperty(CRC_KEY, "00000000");
    JsonObject header = new JsonObject();
    header.add(SafetensorsHeader.METADATA_KEY, meta);
    long offset = 0;
    for (int i = 0; i < names.size(); i++) {
      Tensor t = tensors.get(i);
      long bytes = (long) t.size() * t.dtype().byteSize();
      meta.addProperty(CHUNK_CRC_PREFIX + names.get(i), "0".repeat(8 * chunks(bytes))); // fixed width, filled in below
    }
    for (int i = 0; i < names.size(); i++) {
      Tensor t = tensors.get(i);
      long end = offset + (long) t.size() * t.dtype().byteSize();
      JsonObject e = new JsonObject();
      e.addProperty("dtype", dtypeName(t.dtype()));
      JsonArray shape = new JsonArray();
      Arrays.stream(t.shape().toArray()).forEach(shape::add);
      e.add("shape", shape);
      JsonArray offsets = new JsonArray();
      offsets.add(offset);
      offsets.add(end);
      e.add("data_offsets", offsets);
      header.add(names.get(i), e);
      offset = end;
    }
    int headerBytes = paddedJson(header).length; // the CRC has a fixed width, so the length is known before the data
    try {
      AtomicFiles.write(file, ch -> {
        CRC32C crc = new CRC32C();
        ByteBuffer buf = ByteBuffer.allocateDirect(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
        long pos = 8 + headerBytes;
        for (int i = 0; i < tensors.size(); i++) {
          StringBuilder chunkCrcs = new StringBuilder();
          pos = writeData(ch, pos, tensors.get(i), buf, crc, chunkCrcs);
          meta.addProperty(CHUNK_CRC_PREFIX + names.get(i), chunkCrcs.toString());
        }
        meta.addProperty(CRC_KEY, String.format("%08x", crc.getValue()));
        byte[] json = paddedJson(header);
        ByteBuffer head = ByteBuffer.allocate(8 + json.length).order(ByteOrder.LITTLE_ENDIAN);
        head.putLong(json.length).put(json).flip();
        writeFully(ch, head, 0);
      });
    } catch (IOException e) {
      throw ioError("write", file, e);
    }
  }

  private static void checkNames(List<String> names, List<Tensor> tensors) {
    if (names.size() != tensors.size()) {
      throw new IllegalArgumentException(names.size() + " names for " + tensors.size() + " tensors");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < names.size(); i++) {
      String n = names.get(i);
      if (n.isEmpty() || n.equals(SafetensorsHeader.METADATA_KEY) || !seen.add(n)) {
        throw new IllegalArgumentException("tensor name '" + n + "' is empty, reserved or used twice");
      }
      if (name(tensors.get(i).dtype()).isEmpty()) {
        throw new IllegalArgumentException(
            "tensor '" + n + "' is " + tensors.get(i).dtype() + ": safetensors holds numbers and bools only");
      }
    }
  }

  /** The header's JSON padded with spaces so the data starts 8-byte aligned, as the reference writer does. */
  private static byte[] paddedJson(JsonObject header) {
    byte[] json = GSON.toJson(header).getBytes(StandardCharsets.UTF_8);
    int padded = (json.length + 7) & ~7;
    byte[] r = Arrays.copyOf(json, padded);
    Arrays.fill(r, json.length, padded, (byte) ' ');
    return r;
  }

  /** How many {@link #CHUNK_BYTES} pieces {@code bytes} bytes make (the last one may be short). */
  static int chunks(long bytes) {
    return Math.toIntExact((bytes + CHUNK - 1) / CHUNK);
  }

  /**
   * Streams {@code t}'s elements from its backing array to the file, one chunk at a time through
   * {@code buf}: the checksums see exactly the bytes written, even when an apply updates a live
   * variable's array meanwhile.
   */
  private static long writeData(FileChannel ch, long pos, Tensor t, ByteBuffer buf, CRC32C crc, StringBuilder chunkCrcs)
      throws IOException {
    int width = t.dtype().byteSize();
    int perChunk = CHUNK / width;
    CRC32C piece = new CRC32C();
    for (int from = 0; from < t.size(); from += perChunk) {
      int n = Math.min(perChunk, t.size() - from);
      buf.clear();
      TensorBytes.encode(t, from, n, buf);
      buf.position(0).limit(n * width);
      crc.update(buf.duplicate());
      piece.reset();
      piece.update(buf.duplicate());
      chunkCrcs.append(String.format("%08x", piece.getValue()));
      pos += writeFully(ch, buf, pos);
    }
    return pos;
  }

  /**
   * The tensors {@code names} of {@code file}, with the dtypes and shapes the file gives them.
   * Verifies the header ({@link SafetensorsHeader#read}) and, when present, the data checksum.
   */
  public static List<Tensor> read(Path file, List<String> names) {
    try (FileChannel ch = FileChannel.open(file)) {
      SafetensorsHeader h = SafetensorsHeader.read(ch, file);
      Map<String, Tensor> wanted = new HashMap<>();
      for (String n : names) {
        wanted.put(n, null);
      }
      List<SafetensorsHeader.Entry> byOffset = new ArrayList<>(h.entries());
      byOffset.sort(Comparator.comparingLong(SafetensorsHeader.Entry::begin));
      CRC32C crc = new CRC32C();
      ByteBuffer buf = ByteBuffer.allocateDirect(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
      for (SafetensorsHeader.Entry e : byOffset) {
        // every byte goes through the checksum; only the tensors asked for are decoded
        Tensor t = wanted.containsKey(e.name()) ? Tensor.zeros(e.dtype(), e.shape()) : null;
        readData(ch, h.dataStart(), e, t, buf, crc, file);
        if (t != null) {
          wanted.put(e.name(), t);
        }
      }
      checkCrc(h, crc, file);
      List<Tensor> out = new ArrayList<>(names.size());
      for (String n : names) {
        Tensor t = wanted.get(n);
        if (t == null) {
          throw StatusException.notFound(file + " holds no tensor named '" + n + "'");
        }
        out.add(t);
      }
      return out;
    } catch (IOException e) {
      throw ioError("read", file, e);
    }
  }

  private static void readData(FileChannel ch, long dataStart, SafetensorsHeader.Entry e, Tensor into, ByteBuffer buf,
      CRC32C crc, Path file) throws IOException {
    int width = e.dtype().byteSize();
    long pos = dataStart + e.begin();
    long end = dataStart + e.end();
    for (int from = 0; pos < end; ) {
      int n = (int) Math.min(CHUNK / width, (end - pos) / width);
      buf.clear().limit(n * width);
      while (buf.hasRemaining()) {
        if (ch.read(buf, pos + buf.position()) < 0) {
          throw SafetensorsHeader.corrupt(file, "the file ended inside tensor '" + e.name() + "'");
        }
      }
      buf.flip();
      crc.update(buf.duplicate());
      if (into != null) {
        TensorBytes.decode(buf, into, from, n);
      }
      from += n;
      pos += (long) n * width;
    }
  }

  private static void checkCrc(SafetensorsHeader h, CRC32C crc, Path file) {
    String want = h.metadata().get(CRC_KEY);
    String got = String.format("%08x", crc.getValue());
    if (want != null && !want.equalsIgnoreCase(got)) {
      throw SafetensorsHeader.corrupt(file, "the data's CRC32C is " + got + " but the header records " + want);
    }
  }

  static ByteBuffer readFully(FileChannel ch, long pos, int n, Path file) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(n);
    while (b.hasRemaining()) {
      if (ch.read(b, pos + b.position()) < 0) {
        throw SafetensorsHeader.corrupt(file, "the file ended while reading its header");
      }
    }
    return b.flip();
  }

  private static int writeFully(FileChannel ch, ByteBuffer b, long pos) throws IOException {
    int n = b.remaining();
    while (b.hasRemaining()) {
      ch.write(b, pos + (n - b.remaining()));
    }
    return n;
  }

  /** An I/O failure as a status naming the file. */
  static StatusException ioError(String verb, Path file, IOException e) {
    if (e instanceof NoSuchFileException) {
      return new StatusException(Code.NOT_FOUND, "cannot " + verb + " " + file + ": no such file", e);
    }
    if (e instanceof AccessDeniedException) {
      return new StatusException(Code.PERMISSION_DENIED, "cannot " + verb + " " + file + ": permission denied", e);
    }
    return StatusException.internal("cannot " + verb + " " + file + ": " + e, e);
  }

}
