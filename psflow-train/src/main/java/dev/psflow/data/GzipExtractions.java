package dev.psflow.data;

import dev.psflow.ops.io.AtomicFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Uncompressed copies of gzipped data files, kept in a {@value #DIR} directory beside them, so that
 * a file is inflated once rather than at every start (as torchvision keeps MNIST's files extracted
 * beside the downloads). MNIST's training images are 9.7 MB gzipped and 47 MB raw: inflating them
 * took a replica worker ~0.14 s of CPU at each start, on cores the other tasks were starting on;
 * reading the copy takes ~20 ms. The README's job (1 ps + 2 workers), 26 alternated pairs in three
 * batches: about 2% shorter, on about 2% less CPU (docs/benchmarks.md).
 *
 * <p>A copy is named after the gzip trailer of the file it came from (the CRC-32 of the content), so
 * a different file put under the same name (Fashion-MNIST) gets a copy of its own, and the older
 * copy is removed. It is used while its length is the one the trailer records. It is written
 * atomically ({@link AtomicFiles}) from the inflated stream, whose CRC-32 the inflater has checked.
 * Best effort: a file that is not gzip, a corrupt one, or a directory that takes no copy (read-only,
 * full) is read gzipped as before, so that its errors name it.
 *
 * <p>Stateless; concurrent callers (two workers starting on one machine) each write a temporary
 * file and rename it into place, so a reader sees a whole copy or none.
 */
final class GzipExtractions {
  /** The directory, beside the gzipped files, that holds their copies. */
  static final String DIR = ".uncompressed";

  private static final Logger log = LoggerFactory.getLogger(GzipExtractions.class);
  private static final int BUFFER = 1 << 16;

  private GzipExtractions() {}

  /**
   * What to read for {@code file}: its uncompressed copy, made now if there is none yet, or
   * {@code file} itself when it is not gzip or no copy can be kept.
   */
  static Path readable(Path file) {
    try {
      Trailer trailer = Trailer.of(file);
      if (trailer == null) {
        return file;
      }
      Path copy = copyOf(file, trailer);
      if (Files.isRegularFile(copy) && (Files.size(copy) & 0xffffffffL) == trailer.length()) {
        return copy;
      }
      extract(file, copy, trailer);
      removeOlderCopies(file, copy);
      return copy;
    } catch (IOException | RuntimeException e) {
      log.debug("{} is read gzipped: no uncompressed copy kept ({})", file, e.toString());
      return file;
    }
  }

  /** Where the copy of {@code file} with this trailer lives. */
  private static Path copyOf(Path file, Trailer trailer) {
    return file.resolveSibling(DIR).resolve(prefix(file) + String.format("%08x", trailer.crc()));
  }

  private static String prefix(Path file) {
    return MnistFiles.stripGz(file.getFileName().toString()) + "-";
  }

  private static void extract(Path file, Path copy, Trailer trailer) throws IOException {
    AtomicFiles.write(copy, channel -> {
      long written = 0;
      try (InputStream in = new GZIPInputStream(Files.newInputStream(file), BUFFER)) {
        byte[] buffer = new byte[BUFFER];
        for (int n; (n = in.read(buffer)) > 0; ) {
          ByteBuffer chunk = ByteBuffer.wrap(buffer, 0, n);
          while (chunk.hasRemaining()) {
            channel.write(chunk);
          }
          written += n;
        }
      }
      // several gzip members: the trailer names the last one only, so no copy would ever match it
      if ((written & 0xffffffffL) != trailer.length()) {
        throw new IOException("inflated to " + written + " bytes, its trailer says " + trailer.length());
      }
    });
  }

  /** Copies of an earlier file of the same name: no reader asks for them again. */
  private static void removeOlderCopies(Path file, Path keep) {
    try (DirectoryStream<Path> copies = Files.newDirectoryStream(keep.getParent(), prefix(file) + "*")) {
      for (Path p : copies) {
        if (!p.equals(keep) && !p.getFileName().toString().contains(AtomicFiles.TMP_MARKER)) {
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException | RuntimeException e) {
      log.debug("older copies of {} not removed ({})", file, e.toString());
    }
  }

  /** A gzip file's last 8 bytes: the CRC-32 and the length (modulo 2^32) of its content (also {@link IdxFile#sizeAgrees}'s). */
  record Trailer(long crc, long length) {
    /** The trailer of {@code file}, or null if it does not start as gzip does. */
    static Trailer of(Path file) throws IOException {
      try (FileChannel ch = FileChannel.open(file)) {
        long size = ch.size();
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        if (size < 18 || ch.read(b.limit(2), 0) != 2 || (b.get(0) & 0xff) != 0x1f || (b.get(1) & 0xff) != 0x8b) {
          return null;
        }
        b.clear();
        if (ch.read(b, size - 8) != 8) {
          return null;
        }
        return new Trailer(Integer.toUnsignedLong(b.getInt(0)), Integer.toUnsignedLong(b.getInt(4)));
      }
    }
  }
}
