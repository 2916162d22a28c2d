package dev.psflow.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Reading synthetic IDX files from a temp dir: formats, corruption, missing files, download. */
class MnistFilesTest {
  private static final String UNREACHABLE = "http://127.0.0.1:1/";

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void readsGzippedAndPlainFiles(boolean gzip) {
    MnistFixture.writeAll(dir, gzip);
    MnistDatasets m = MnistDatasets.read(dir, false, UNREACHABLE);
    assertThat(m.validation().numExamples()).isEqualTo(MnistDatasets.VALIDATION_SIZE);
    assertThat(m.train().numExamples()).isEqualTo(10);
    assertThat(m.test().numExamples()).isEqualTo(MnistFixture.TEST);
    assertThat(m.train().images().shape().toIntArray()).containsExactly(10, 4);
    int first = MnistDatasets.VALIDATION_SIZE; // train starts after validation
    for (int p = 0; p < 4; p++) {
      assertThat(m.train().images().floatData()[p])
          .isEqualTo(MnistFixture.pixel(first, p) * (float) (1.0 / 255.0));
    }
    assertThat(m.train().labels().intData()[0]).isEqualTo(MnistFixture.label(first));
    assertThat(m.test().labels().intData()).containsExactly(0, 1, 2);
  }

  @Test
  void oneHotLabels() {
    MnistFixture.writeAll(dir, true);
    float[] y = MnistDatasets.read(dir, true, UNREACHABLE).test().labels().floatData();
    assertThat(Arrays.copyOfRange(y, 10, 20)).containsExactly(0, 1, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void truncatedFileNamesTheFile(boolean gzip) throws IOException {
    MnistFixture.writeAll(dir, gzip);
    Path file = dir.resolve(gzip ? MnistDatasets.TRAIN_IMAGES : "train-images-idx3-ubyte");
    byte[] whole = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(whole, whole.length / 2));
    assertThatThrownBy(() -> MnistDatasets.read(dir, true, UNREACHABLE))
        .isInstanceOf(DataException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("truncated");
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void theFileSizeSaysWhetherTheBodyCanBeReadIntoOneArray(boolean gzip) throws IOException {
    MnistFixture.writeAll(dir, gzip);
    Path file = dir.resolve(gzip ? MnistDatasets.TRAIN_LABELS : "train-labels-idx1-ubyte");
    long total = 8 + IdxFile.readLabels(file).length; // header and body, uncompressed
    assertThat(IdxFile.sizeAgrees(file, total)).isTrue();
    assertThat(IdxFile.sizeAgrees(file, total + 1)).isFalse();
    byte[] whole = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(whole, whole.length - 1));
    assertThat(IdxFile.sizeAgrees(file, total)).isFalse();
  }

  @Test
  void aHeaderClaimingFarMoreThanTheFileHoldsFailsAsTruncated() {
    MnistFixture.writeAll(dir, true);
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16 + 4);
    b.putInt(IdxFile.IMAGES_MAGIC).putInt(1_000_000).putInt(28).putInt(28); // 784 MB said, 4 bytes there
    MnistFixture.write(dir, MnistDatasets.TEST_IMAGES, true, b.array());
    assertThatThrownBy(() -> MnistDatasets.read(dir, true, UNREACHABLE))
        .isInstanceOf(DataException.class)
        .hasMessageContaining(MnistDatasets.TEST_IMAGES)
        .hasMessageContaining("truncated: its header says 1000000 images of 28x28 (784000000 bytes) but only 4 bytes follow");
  }

  @Test
  void wrongMagicNumber() {
    MnistFixture.writeAll(dir, true);
    // a label file where the images should be
    MnistFixture.write(dir, MnistDatasets.TEST_IMAGES, true, MnistFixture.labels(3));
    assertThatThrownBy(() -> MnistDatasets.read(dir, true, UNREACHABLE))
        .isInstanceOf(DataException.class)
        .hasMessageContaining(MnistDatasets.TEST_IMAGES)
        .hasMessageContaining("magic number is 2049")
        .hasMessageContaining("expected 2051");
  }

  @Test
  void badGzipStream() throws IOException {
    MnistFixture.writeAll(dir, true);
    Path file = dir.resolve(MnistDatasets.TRAIN_LABELS);
    byte[] gz = Files.readAllBytes(file);
    Arrays.fill(gz, 12, gz.length - 8, (byte) 0x5a); // keep the gzip header, garble the rest
    Files.write(file, gz);
    assertThatThrownBy(() -> MnistDatasets.read(dir, true, UNREACHABLE))
        .isInstanceOf(DataException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("gzip");
  }

  @Test
  void extraBytesAndMismatchedCounts() throws IOException {
    MnistFixture.writeAll(dir, false);
    Path labels = dir.resolve("t10k-labels-idx1-ubyte");
    Files.write(labels, MnistFixture.labels(4));
    assertThatThrownBy(() -> MnistDatasets.read(dir, true, UNREACHABLE))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("has 4 labels but")
        .hasMessageContaining("has 3 images");
    byte[] longer = Arrays.copyOf(MnistFixture.labels(3), 8 + 3 + 1);
    Files.write(labels, longer);
    assertThatThrownBy(() -> MnistDatasets.read(dir, true, UNREACHABLE))
        .isInstanceOf(DataException.class)
        .hasMessageContaining(labels + " is longer than its header says");
    byte[] badLabel = MnistFixture.labels(3);
    badLabel[9] = 10;
    Files.write(labels, badLabel);
    assertThatThrownBy(() -> MnistDatasets.read(dir, true, UNREACHABLE))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("label 10 at index 1");
  }

  @Test
  void testImagesOfAnotherSize() {
    MnistFixture.writeAll(dir, true);
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16 + 3 * 4);
    b.putInt(IdxFile.IMAGES_MAGIC).putInt(3).putInt(1).putInt(4);
    MnistFixture.write(dir, MnistDatasets.TEST_IMAGES, true, b.array());
    assertThatThrownBy(() -> MnistDatasets.read(dir, true, UNREACHABLE))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("has 1x4 images but")
        .hasMessageContaining("has 2x2");
  }

  @Test
  void missingFileThatCannotBeDownloadedGivesOneLineNamingFileAndFlag() {
    MnistFixture.writeAll(dir, true);
    Path sub = dir.resolve("empty");
    assertThatThrownBy(() -> MnistDatasets.read(sub, true, UNREACHABLE))
        .isInstanceOf(DataException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"))
        .hasMessageStartingWith("MNIST file train-images-idx3-ubyte.gz is missing in " + sub)
        .hasMessageContaining("could not be downloaded (")
        .hasMessageEndingWith("; copy it there or point --data_dir at a directory that has it");
    assertThat(sub).isEmptyDirectory(); // no partial download left behind
  }

  @Test
  void downloadsMissingFilesAndChecksThem() throws IOException {
    Path source = dir.resolve("source");
    MnistFixture.writeAll(source, true);
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/mnist/", exchange -> {
      Path file = source.resolve(Path.of(exchange.getRequestURI().getPath()).getFileName());
      byte[] body = Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
      exchange.sendResponseHeaders(body.length > 0 ? 200 : 404, body.length > 0 ? body.length : -1);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/mnist";
      Path target = dir.resolve("target");
      // The synthetic files do not match MNIST's published checksums: rejected, nothing kept.
      assertThatThrownBy(() -> MnistDatasets.read(target, true, url))
          .isInstanceOf(DataException.class)
          .hasMessageContaining("SHA-256 of the download is " + MnistFiles.sha256(source.resolve(MnistDatasets.TRAIN_IMAGES)))
          .hasMessageContaining("expected " + MnistFiles.KNOWN_SHA256.get(MnistDatasets.TRAIN_IMAGES));
      assertThat(target).isEmptyDirectory();
      // With a SHA256SUMS that lists them, they are accepted and moved into place.
      writeSums(source, target);
      MnistDatasets m = MnistDatasets.read(target, true, url);
      assertThat(m.test().numExamples()).isEqualTo(MnistFixture.TEST);
      try (Stream<Path> files = Files.list(target)) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .containsExactlyInAnyOrder("SHA256SUMS", MnistDatasets.TRAIN_IMAGES,
                MnistDatasets.TRAIN_LABELS, MnistDatasets.TEST_IMAGES, MnistDatasets.TEST_LABELS,
                GzipExtractions.DIR);
      }
      assertThatThrownBy(() -> MnistDatasets.read(dir.resolve("other"), true, url.replace("/mnist", "/elsewhere")))
          .hasMessageContaining("(IOException: HTTP 404 from ");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void presentFilesAreCheckedStructurallyNotHashed() throws IOException {
    MnistFixture.writeAll(dir, true);
    Files.writeString(dir.resolve("SHA256SUMS"), "0".repeat(64) + "  " + MnistDatasets.TEST_LABELS);
    assertThat(MnistDatasets.read(dir, true, UNREACHABLE).test().numExamples()).isEqualTo(3);
  }

  @Test
  void parsesSha256SumsFormats() throws IOException {
    String a = "a".repeat(64);
    Files.writeString(dir.resolve("SHA256SUMS"), a + "  x.gz\n\n" + "B".repeat(64) + " *y\n");
    assertThat(MnistFiles.readSums(dir.resolve("SHA256SUMS")))
        .containsEntry("x.gz", a).containsEntry("y", "b".repeat(64));
    Files.writeString(dir.resolve("SHA256SUMS"), "nonsense\n");
    assertThatThrownBy(() -> MnistFiles.readSums(dir.resolve("SHA256SUMS")))
        .isInstanceOf(DataException.class).hasMessageContaining("line 1");
  }

  @Test
  void defaultDataDirWalksUpThenFallsBackToPsflowHome() throws IOException {
    Path repo = dir.resolve("repo");
    Path deep = Files.createDirectories(repo.resolve("a/b"));
    Path home = dir.resolve("home");
    Path fallback = deep.resolve("datasets/mnist");
    assertThat(MnistDatasets.defaultDataDir(deep, null)).isEqualTo(fallback);
    assertThat(MnistDatasets.defaultDataDir(deep, home.toString()))
        .isEqualTo(home.resolve("datasets/mnist"));
    Files.createDirectories(repo.resolve("datasets/mnist"));
    assertThat(MnistDatasets.defaultDataDir(deep, home.toString()))
        .isEqualTo(repo.resolve("datasets/mnist"));
  }

  private static void writeSums(Path source, Path target) throws IOException {
    StringBuilder sums = new StringBuilder();
    for (String name : MnistFiles.KNOWN_SHA256.keySet()) {
      sums.append(MnistFiles.sha256(source.resolve(name))).append("  ").append(name).append('\n');
    }
    Files.createDirectories(target);
    Files.writeString(target.resolve("SHA256SUMS"), sums);
  }
}
