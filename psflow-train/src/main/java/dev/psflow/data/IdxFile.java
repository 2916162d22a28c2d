package dev.psflow.data;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads the unsigned-byte IDX files MNIST ships in (big-endian header, then raw bytes), gzipped or
 * not: gzip is recognised by its magic bytes, not by the file name. Every check names the file:
 * gzip errors (including the CRC in the gzip trailer), the IDX magic number, implausible
 * dimensions, and a body shorter or longer than the header says.
 */
final class IdxFile {
  static final int IMAGES_MAGIC = 2051; // 0x00000803: unsigned bytes, 3 dimensions
  static final int LABELS_MAGIC = 2049; // 0x00000801: unsigned bytes, 1 dimension

  private static final int BUFFER = 1 << 16;
  private static final int READ_PIECE = 1 << 20;
  private static final long MAX_BODY = Integer.MAX_VALUE - 16; // must fit in one byte[]

  /** {@code count} images of {@code rows x cols} pixels, one unsigned byte each, row-major. */
  record Images(int count, int rows, int cols, byte[] pixels) {}

  private IdxFile() {}

  static Images readImages(Path file) {
    return readImages(file, file);
  }

  /** Reads {@code file}, naming {@code named} in every error (the gzipped file a copy was made from). */
  static Images readImages(Path file, Path named) {
    try (InputStream in = open(file)) {
      ByteBuffer h = header(in, named, IMAGES_MAGIC, "image", 3);
      int count = h.getInt();
      int rows = h.getInt();
      int cols = h.getInt();
      if (count < 0 || rows <= 0 || cols <= 0 || (long) Math.max(count, 1) * rows * cols > MAX_BODY) {
        throw new DataException(
            named + " has an implausible header: " + count + " images of " + rows + "x" + cols);
      }
      String what = count + " images of " + rows + "x" + cols;
      return new Images(count, rows, cols, body(in, file, named, 16, count * rows * cols, what));
    } catch (IOException e) {
      throw readFailure(named, e);
    }
  }

  /** The label bytes, one per example. */
  static byte[] readLabels(Path file) {
    return readLabels(file, file);
  }

  /** As {@link #readLabels(Path)}, naming {@code named} in every error. */
  static byte[] readLabels(Path file, Path named) {
    try (InputStream in = open(file)) {
      ByteBuffer h = header(in, named, LABELS_MAGIC, "label", 1);
      int count = h.getInt();
      if (count < 0) {
        throw new DataException(named + " has an implausible header: " + count + " labels");
      }
      return body(in, file, named, 8, count, count + " labels");
    } catch (IOException e) {
      throw readFailure(named, e);
    }
  }

  private static InputStream open(Path file) throws IOException {
    InputStream raw = new BufferedInputStream(Files.newInputStream(file), BUFFER);
    try {
      raw.mark(2);
      boolean gzip = raw.read() == 0x1f && raw.read() == 0x8b;
      raw.reset();
      return gzip ? new GZIPInputStream(raw, BUFFER) : raw;
    } catch (IOException | RuntimeException e) {
      raw.close();
      throw e;
    }
  }

  /** Checks the magic number, then returns the {@code dims} dimension sizes (big-endian ints). */
  private static ByteBuffer header(InputStream in, Path file, int magic, String kind, int dims)
      throws IOException {
    byte[] m = in.readNBytes(4);
    int actual = m.length == 4 ? ByteBuffer.wrap(m).getInt() : -1;
    if (actual != magic) {
      throw new DataException(
          m.length < 4
              ? file + " is truncated: it ends inside the IDX magic number"
              : String.format(
                  "%s is not an IDX %s file: magic number is %d (0x%08x), expected %d",
                  file, kind, actual, actual, magic));
    }
    byte[] h = in.readNBytes(4 * dims);
    if (h.length < 4 * dims) {
      throw new DataException(file + " is truncated: it ends inside the IDX header");
    }
    return ByteBuffer.wrap(h); // big-endian, as IDX is
  }

  /**
   * Reads exactly {@code length} bytes and checks that nothing follows them.
   *
   * <p>When the file's own size agrees with the header (see {@link #sizeAgrees}), the bytes go
   * straight into one array of the final size, a megabyte a read. Otherwise they are read as
   * {@code readNBytes(int)} does, in 16 KB pieces joined at the end, so that a header claiming more than the file holds
   * costs no more memory than the file's real contents before it fails as truncated. That path
   * kept the whole body alive in thousands of young pieces: reading MNIST took a worker through six
   * more young collections (17 against 11), each copying the pieces read so far, while the
   * cluster's other JVMs were starting on the same cores.
   */
  private static byte[] body(InputStream in, Path file, Path named, int headerBytes, int length, String what)
      throws IOException {
    byte[] body;
    if (sizeAgrees(file, headerBytes + (long) length)) {
      body = new byte[length];
      int n = 0;
      // At most a megabyte a read: NIO reads a plain file into a heap array through a temporary direct
      // buffer as large as the read, which it then keeps for the thread (47 MB more peak memory).
      while (n < length) {
        int r = in.read(body, n, Math.min(length - n, READ_PIECE));
        if (r < 0) {
          break;
        }
        n += r;
      }
      if (n < length) {
        body = Arrays.copyOf(body, n);
      }
    } else {
      body = in.readNBytes(length);
    }
    if (body.length < length) {
      throw new DataException(
          named + " is truncated: its header says " + what + " (" + length + " bytes) but only "
              + body.length + " bytes follow");
    }
    if (in.read() != -1) { // for gzip, reaching the end also checks the trailer's CRC
      throw new DataException(named + " is longer than its header says (" + what + ")");
    }
    return body;
  }

  /**
   * Whether {@code file} holds {@code total} bytes once uncompressed: its size for a plain file;
   * for gzip, the size its trailer records (modulo 2^32, as gzip keeps it). A hint only: the read
   * itself still checks the length and the CRC.
   */
  static boolean sizeAgrees(Path file, long total) throws IOException {
    GzipExtractions.Trailer trailer = GzipExtractions.Trailer.of(file);
    return trailer != null ? trailer.length() == (total & 0xffffffffL) : Files.size(file) == total;
  }

  private static DataException readFailure(Path file, IOException e) {
    String reason =
        switch (e) {
          case EOFException eof -> "is truncated (the gzip stream ends early)";
          case ZipException zip -> "is not a valid gzip file (" + zip.getMessage() + ")";
          default -> "could not be read (" + e + ")";
        };
    return new DataException(file + " " + reason, e);
  }
}
