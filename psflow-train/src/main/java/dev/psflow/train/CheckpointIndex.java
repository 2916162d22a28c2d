package dev.psflow.train;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import dev.psflow.ops.io.AtomicFiles;
import dev.psflow.ops.io.Safetensors;
import dev.psflow.ops.io.SafetensorsHeader;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The index of one checkpoint, {@code <prefix>.index.json}: its shard files (name relative to the
 * directory, device that wrote it, byte size, CRC32C of its data) and, for every variable, the
 * shard holding it with its dtype and shape. Written by the chief once every shard is on disk;
 * {@link #verifyShards} is what makes a checkpoint "complete".
 *
 * <pre>{@code
 * {"format": "psflow-checkpoint-index", "version": 1, "global_step": 200,
 *  "shards": [{"file": "model.ckpt-200.shard-0-of-2.safetensors", "device": "/job:ps/replica:0/task:0",
 *              "bytes": 314016, "data_crc32c": "1c2b3a49"}, ...],
 *  "variables": {"hid_w": {"file": "model.ckpt-200.shard-0-of-2.safetensors", "dtype": "F32", "shape": [784,100]},
 *                "emb/part_1": {"file": ..., "dtype": "F32", "shape": [5,4], "save_slice_info":
 *                    {"full_name": "emb", "full_shape": [10,4], "var_offset": [5,0], "var_shape": [5,4]}}, ...}}
 * }</pre>
 *
 * <p>{@code save_slice_info} is TensorFlow's {@code SaveSliceInfo} of a partition: which rows of
 * the full variable it holds, so a restore can re-partition (see {@link RestorePlan}).
 */
record CheckpointIndex(Path prefix, long globalStep, List<Shard> shards, Map<String, Entry> variables) {
  static final String FORMAT = "psflow-checkpoint-index";
  private static final Gson GSON = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();

  record Shard(String file, String device, long bytes, String crc32c) {}

  /** One saved variable; {@code slice} is its {@link SaveSliceInfo} when it is a partition (or a partition's slot), else null. */
  record Entry(String file, DType dtype, Shape shape, SaveSliceInfo slice) {
    /** Its slice of its full variable: the recorded one, or all of itself. */
    SaveSliceInfo sliceOrWhole(String name) {
      return slice != null ? slice : SaveSliceInfo.whole(name, shape);
    }
  }

  CheckpointIndex {
    shards = List.copyOf(shards);
    variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
  }

  static Path indexFile(Path prefix) {
    return prefix.resolveSibling(prefix.getFileName() + ".index.json");
  }

  String name() {
    return prefix.getFileName().toString();
  }

  Path dir() {
    return prefix.toAbsolutePath().getParent();
  }

  /** The index of the shards just written: reads their headers for size and checksum, and checks they hold what was saved. */
  static CheckpointIndex describe(Path prefix, long globalStep, List<String> files, List<String> devices,
      List<List<Variable>> saved, Map<String, SaveSliceInfo> slices) {
    List<Shard> shards = new ArrayList<>();
    Map<String, Entry> variables = new LinkedHashMap<>();
    for (int i = 0; i < files.size(); i++) {
      Path file = prefix.resolveSibling(files.get(i));
      SafetensorsHeader h = SafetensorsHeader.read(file);
      // the device the SaveV2 kernel ran on (fully placed), rather than the variables' requested one
      String device = h.metadata().getOrDefault("device", devices.get(i));
      shards.add(new Shard(files.get(i), device, h.fileSize(), h.metadata().getOrDefault(Safetensors.CRC_KEY, "")));
      for (Variable v : saved.get(i)) {
        Entry e = new Entry(files.get(i), v.dtype(), v.shape(), slices.get(v.name()));
        check(h, v.name(), e, prefix);
        variables.put(v.name(), e);
      }
    }
    return new CheckpointIndex(prefix, globalStep, shards, variables);
  }

  void write() {
    JsonObject root = new JsonObject();
    root.addProperty("format", FORMAT);
    root.addProperty("version", 1);
    root.addProperty("global_step", globalStep);
    JsonArray sh = new JsonArray();
    for (Shard s : shards) {
      JsonObject o = new JsonObject();
      o.addProperty("file", s.file());
      o.addProperty("device", s.device());
      o.addProperty("bytes", s.bytes());
      o.addProperty("data_crc32c", s.crc32c());
      sh.add(o);
    }
    root.add("shards", sh);
    JsonObject vars = new JsonObject();
    variables.forEach((name, e) -> {
      JsonObject o = new JsonObject();
      o.addProperty("file", e.file());
      o.addProperty("dtype", Safetensors.name(e.dtype()).orElseThrow());
      JsonArray shape = new JsonArray();
      for (long d : e.shape().toArray()) {
        shape.add(d);
      }
      o.add("shape", shape);
      if (e.slice() != null) {
        o.add("save_slice_info", sliceJson(e.slice()));
      }
      vars.add(name, o);
    });
    root.add("variables", vars);
    Path file = indexFile(prefix);
    try {
      AtomicFiles.writeString(file, GSON.toJson(root) + "\n");
    } catch (IOException e) {
      throw StatusException.internal("cannot write checkpoint index " + file + ": " + e, e);
    }
  }

  /** Reads {@code <prefix>.index.json}: NOT_FOUND when absent, DATA_LOSS naming it when malformed. */
  static CheckpointIndex read(Path prefix) {
    Path file = indexFile(prefix);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw StatusException.notFound("checkpoint " + prefix.getFileName() + " not found: no index " + file);
    } catch (CharacterCodingException e) {
      throw new StatusException(Code.DATA_LOSS, "corrupt checkpoint index " + file + ": not UTF-8 text", e);
    } catch (IOException e) {
      throw StatusException.internal("cannot read checkpoint index " + file + ": " + e, e);
    }
    try {
      JsonObject root = JsonParser.parseString(text).getAsJsonObject();
      if (!FORMAT.equals(root.get("format").getAsString()) || root.get("version").getAsInt() != 1) {
        throw new IllegalStateException("not a version 1 " + FORMAT);
      }
      List<Shard> shards = new ArrayList<>();
      for (JsonElement s : root.getAsJsonArray("shards")) {
        JsonObject o = s.getAsJsonObject();
        shards.add(new Shard(fileName(o.get("file").getAsString()), o.get("device").getAsString(), o.get("bytes").getAsLong(),
            o.get("data_crc32c").getAsString()));
      }
      Map<String, Entry> variables = new LinkedHashMap<>();
      for (Map.Entry<String, JsonElement> kv : root.getAsJsonObject("variables").entrySet()) {
        JsonObject o = kv.getValue().getAsJsonObject();
        DType dtype = Safetensors.dtypeOf(o.get("dtype").getAsString())
            .orElseThrow(() -> new IllegalStateException("unknown dtype " + o.get("dtype")));
        Shape shape = Shape.of(longs(o.getAsJsonArray("shape")));
        JsonObject sl = o.getAsJsonObject("save_slice_info");
        SaveSliceInfo slice = sl == null ? null : new SaveSliceInfo(sl.get("full_name").getAsString(),
            Shape.of(longs(sl.getAsJsonArray("full_shape"))), longs(sl.getAsJsonArray("var_offset")),
            Shape.of(longs(sl.getAsJsonArray("var_shape"))));
        if (slice != null && !slice.varShape().equals(shape)) {
          throw new IllegalStateException(kv.getKey() + " has shape " + shape + " but its save_slice_info says " + slice.varShape());
        }
        variables.put(kv.getKey(), new Entry(o.get("file").getAsString(), dtype, shape, slice));
      }
      return new CheckpointIndex(prefix, root.get("global_step").getAsLong(), shards, variables);
    } catch (RuntimeException e) { // Gson's parse errors, missing fields (NullPointerException), wrong kinds
      throw new StatusException(Code.DATA_LOSS, "corrupt checkpoint index " + file + ": " + e.getMessage(), e);
    }
  }

  private static JsonObject sliceJson(SaveSliceInfo s) {
    JsonObject o = new JsonObject();
    o.addProperty("full_name", s.fullName());
    o.add("full_shape", array(s.fullShape().toArray()));
    o.add("var_offset", array(s.varOffset()));
    o.add("var_shape", array(s.varShape().toArray()));
    return o;
  }

  private static JsonArray array(long[] values) {
    JsonArray a = new JsonArray();
    for (long v : values) {
      a.add(v);
    }
    return a;
  }

  private static long[] longs(JsonArray a) {
    long[] r = new long[a.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = a.get(i).getAsLong();
    }
    return r;
  }

  /** A shard is a file beside its index: a path that leaves the directory (or is none) makes the index corrupt. */
  private static String fileName(String file) {
    if (file.isEmpty() || file.equals(".") || file.equals("..") || file.contains("/") || file.contains("\\")
        || file.indexOf('\0') >= 0) {
      throw new IllegalStateException("shard file '" + file + "' is not a file name in the checkpoint's directory");
    }
    return file;
  }

  /**
   * Every shard exists, is well-formed safetensors of the size and data checksum the index
   * recorded, and holds each variable the index places in it with the recorded dtype and shape.
   * Reads headers only. Throws (NOT_FOUND or DATA_LOSS) naming the checkpoint and the file.
   */
  void verifyShards() {
    Map<String, SafetensorsHeader> headers = new LinkedHashMap<>();
    for (Shard s : shards) {
      Path file = dir().resolve(s.file());
      SafetensorsHeader h;
      try {
        h = SafetensorsHeader.read(file);
      } catch (StatusException e) {
        throw new StatusException(e.code(), "checkpoint " + name() + " is incomplete: " + e.getMessage(), e);
      }
      if (h.fileSize() != s.bytes() || !s.crc32c().equals(h.metadata().getOrDefault(Safetensors.CRC_KEY, ""))) {
        throw new StatusException(Code.DATA_LOSS, "checkpoint " + name() + " is incomplete: shard " + file + " ("
            + h.fileSize() + " bytes, CRC32C " + h.metadata().get(Safetensors.CRC_KEY) + ") is not the one its index records ("
            + s.bytes() + " bytes, CRC32C " + s.crc32c() + ")");
      }
      headers.put(s.file(), h);
    }
    variables.forEach((name, e) -> {
      SafetensorsHeader h = headers.get(e.file());
      if (h == null) {
        throw new StatusException(Code.DATA_LOSS,
            "corrupt checkpoint index " + indexFile(prefix) + ": " + name + " is in " + e.file() + ", which is not a listed shard");
      }
      check(h, name, e, prefix);
    });
  }

  private static void check(SafetensorsHeader h, String name, Entry e, Path prefix) {
    SafetensorsHeader.Entry got = h.entry(name).orElseThrow(() -> new StatusException(Code.DATA_LOSS,
        "checkpoint " + prefix.getFileName() + " is incomplete: shard " + h.file() + " does not hold " + name));
    if (got.dtype() != e.dtype() || !got.shape().equals(e.shape())) {
      throw new StatusException(Code.DATA_LOSS, "checkpoint " + prefix.getFileName() + " is inconsistent: shard " + h.file()
          + " holds " + name + " as " + got.dtype() + " " + got.shape() + ", not " + e.dtype() + " " + e.shape());
    }
  }
}
