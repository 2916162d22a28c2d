package dev.psflow.ops.io;

import dev.psflow.exec.StatusException;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Reads rows {@code [start, start + count)} (along axis 0) of one tensor of a safetensors file,
 * touching only the {@link Safetensors#CHUNK_BYTES} pieces that hold them: this is how a restore
 * onto a different number of ps tasks reads, on each ps, just the rows of its new partitions. Each
 * piece read is checked against the tensor's {@code chunk_crc32c/<name>} metadata (files written
 * before those checksums existed are read unchecked beyond their header), and the rows are decoded
 * straight from the one piece buffer into the new tensor's array. Stateless and thread-safe.
 *
 * <pre>{@code
 * SafetensorsHeader h = SafetensorsHeader.read(shard);
 * Tensor rows = SafetensorsRows.read(shard, h, h.entry("emb/part_0").orElseThrow(), 2, 3);  // rows 2..4
 * }</pre>
 */
public final class SafetensorsRows {
  private SafetensorsRows() {}

  /** Rows {@code [start, start + count)} of {@code e}; a rank-0 tensor is one row. */
  public static Tensor read(Path file, SafetensorsHeader h, SafetensorsHeader.Entry e, long start, long count) {
    long[] dims = e.shape().toArray();
    long rows = dims.length == 0 ? 1 : dims[0];
    if (start < 0 || count < 0 || start + count > rows) {
      throw StatusException.invalidArgument("rows [" + start + ", " + (start + count) + ") are outside '" + e.name()
          + "' " + e.shape() + " in " + file);
    }
    long rowElements = 1;
    for (int i = 1; i < dims.length; i++) {
      rowElements *= dims[i];
    }
    Shape shape;
    if (dims.length == 0) {
      shape = Shape.scalar();
    } else {
      dims[0] = count;
      shape = Shape.of(dims);
    }
    Tensor out = Tensor.zeros(e.dtype(), shape);
    int width = e.dtype().byteSize();
    try (FileChannel ch = FileChannel.open(file)) {
      copy(ch, h, e, start * rowElements * width, count * rowElements * width, out, file);
    } catch (IOException ex) {
      throw Safetensors.ioError("read", file, ex);
    }
    return out;
  }

  /** Copies tensor bytes {@code [from, from + n)} (relative to the tensor's start) into {@code out}, chunk by chunk. */
  private static void copy(FileChannel ch, SafetensorsHeader h, SafetensorsHeader.Entry e, long from, long n, Tensor out,
      Path file) throws IOException {
    String crcs = h.metadata().get(Safetensors.CHUNK_CRC_PREFIX + e.name());
    long tensorBytes = e.end() - e.begin();
    if (crcs != null && crcs.length() != 8 * Safetensors.chunks(tensorBytes)) {
      throw SafetensorsHeader.corrupt(file, "the chunk checksums of '" + e.name() + "' do not match its size");
    }
    int chunk = Safetensors.CHUNK_BYTES;
    int width = e.dtype().byteSize();
    ByteBuffer buf = ByteBuffer.allocateDirect(chunk).order(ByteOrder.LITTLE_ENDIAN);
    CRC32C crc = new CRC32C();
    int written = 0; // elements of out filled so far
    for (long c = from / chunk; c * chunk < from + n; c++) {
      long chunkStart = c * chunk;
      int len = (int) Math.min(chunk, tensorBytes - chunkStart);
      buf.clear().limit(len);
      long pos = h.dataStart() + e.begin() + chunkStart;
      while (buf.hasRemaining()) {
        if (ch.read(buf, pos + buf.position()) < 0) {
          throw SafetensorsHeader.corrupt(file, "the file ended inside tensor '" + e.name() + "'");
        }
      }
      buf.flip();
      if (crcs != null) {
        crc.reset();
        crc.update(buf.duplicate());
        String want = crcs.substring((int) (8 * c), (int) (8 * c + 8));
        if (!want.equalsIgnoreCase(String.format("%08x", crc.getValue()))) {
          throw SafetensorsHeader.corrupt(file, "chunk " + c + " of '" + e.name() + "' fails its CRC32C check");
        }
      }
      // the part of this chunk inside [from, from + n)
      long lo = Math.max(from, chunkStart);
      long hi = Math.min(from + n, chunkStart + len);
      int elements = (int) ((hi - lo) / width);
      ByteBuffer part = buf.position((int) (lo - chunkStart)).slice().order(ByteOrder.LITTLE_ENDIAN);
      TensorBytes.decode(part, out, written, elements);
      written += elements;
    }
  }
}
