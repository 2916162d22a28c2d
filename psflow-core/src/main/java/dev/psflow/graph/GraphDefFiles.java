package dev.psflow.graph;

import com.google.protobuf.TextFormat;
import dev.psflow.proto.GraphDef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A graph in a file, as TensorFlow's {@code tf.train.write_graph} writes it: binary GraphDef, or
 * protobuf text when the name ends in {@code .pbtxt}. Written to a temporary name and renamed, so a
 * reader never sees half a file. {@code psflow explain --graph_def=FILE} reads these.
 *
 * <pre>{@code
 * GraphDefFiles.write(graph, Path.of("model.pb"));
 * GraphDef def = GraphDefFiles.read(Path.of("model.pb"));
 * }</pre>
 */
public final class GraphDefFiles {
  private GraphDefFiles() {}

  public static void write(Graph graph, Path file) {
    byte[] bytes = isText(file) ? TextFormat.printer().printToString(GraphDefs.toProto(graph))
        .getBytes(StandardCharsets.UTF_8) : GraphDefs.toBytes(graph);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      Files.write(tmp, bytes);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the graph to " + file + ": " + e.getMessage(), e);
    }
  }

  /** The GraphDef in {@code file}; IllegalArgumentException naming the file when it is missing or not one. */
  public static GraphDef read(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("no graph file " + file);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the graph file " + file + ": " + e.getMessage(), e);
    }
    if (isText(file)) {
      try {
        GraphDef.Builder b = GraphDef.newBuilder();
        TextFormat.getParser().merge(new String(bytes, StandardCharsets.UTF_8), b);
        return b.build();
      } catch (TextFormat.ParseException e) {
        throw new IllegalArgumentException(file + " is not a text GraphDef: " + e.getMessage(), e);
      }
    }
    try {
      return GraphDefs.parse(bytes);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + " is not a binary GraphDef (" + e.getMessage()
          + "); a text one must end in .pbtxt", e);
    }
  }

  private static boolean isText(Path file) {
    return file.getFileName().toString().endsWith(".pbtxt");
  }
}
