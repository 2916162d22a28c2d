package dev.psflow.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A gzipped data file is inflated once, into .uncompressed beside it, and read from there after. */
class GzipExtractionsTest {
  private static final String NAME = MnistDatasets.TRAIN_LABELS;
  private static final String UNREACHABLE = "http://127.0.0.1:1/";

  @TempDir Path dir;

  @Test
  void theFirstReadKeepsAnUncompressedCopyThatLaterReadsTake() throws IOException {
    byte[] content = MnistFixture.labels(20);
    Path gz = MnistFixture.write(dir, NAME, true, content);

    Path copy = GzipExtractions.readable(gz);

    assertThat(copy.getParent()).isEqualTo(dir.resolve(GzipExtractions.DIR));
    assertThat(copy.getFileName().toString()).startsWith("train-labels-idx1-ubyte-");
    assertThat(Files.readAllBytes(copy)).isEqualTo(content);
    FileTime written = FileTime.fromMillis(1_000_000L);
    Files.setLastModifiedTime(copy, written);
    assertThat(GzipExtractions.readable(gz)).isEqualTo(copy);
    assertThat(Files.getLastModifiedTime(copy)).isEqualTo(written); // taken, not written again
    assertThat(copies()).containsExactly(copy.getFileName().toString());
  }

  @Test
  void anotherFileUnderTheSameNameGetsItsOwnCopyAndTheOldOneGoes() throws IOException {
    Path gz = MnistFixture.write(dir, NAME, true, MnistFixture.labels(20));
    Path first = GzipExtractions.readable(gz);
    byte[] other = MnistFixture.labels(20);
    other[8] = 7; // same length, other content: a drop-in such as Fashion-MNIST
    MnistFixture.write(dir, NAME, true, other);

    Path second = GzipExtractions.readable(gz);

    assertThat(second).isNotEqualTo(first);
    assertThat(Files.readAllBytes(second)).isEqualTo(other);
    assertThat(copies()).containsExactly(second.getFileName().toString());
  }

  @Test
  void aCopyOfTheWrongLengthIsMadeAgain() throws IOException {
    byte[] content = MnistFixture.labels(20);
    Path gz = MnistFixture.write(dir, NAME, true, content);
    Path copy = GzipExtractions.readable(gz);
    Files.write(copy, Arrays.copyOf(content, content.length - 3));

    assertThat(GzipExtractions.readable(gz)).isEqualTo(copy);
    assertThat(Files.readAllBytes(copy)).isEqualTo(content);
  }

  @Test
  void aFileThatIsNotGzipIsReadAsItIs() {
    Path plain = MnistFixture.write(dir, NAME, false, MnistFixture.labels(20));
    Path misnamed = MnistFixture.write(dir.resolve("b"), NAME + ".gz", false, MnistFixture.labels(20));

    assertThat(GzipExtractions.readable(plain)).isEqualTo(plain);
    assertThat(GzipExtractions.readable(misnamed)).isEqualTo(misnamed);
    assertThat(dir.resolve(GzipExtractions.DIR)).doesNotExist();
  }

  @Test
  void aCorruptGzipFileIsReadGzippedSoThatItsErrorNamesIt() throws IOException {
    Path gz = MnistFixture.write(dir, NAME, true, MnistFixture.labels(20));
    byte[] bytes = Files.readAllBytes(gz);
    Arrays.fill(bytes, 12, bytes.length - 8, (byte) 0x5a);
    Files.write(gz, bytes);

    assertThat(GzipExtractions.readable(gz)).isEqualTo(gz);
    assertThat(copies()).isEmpty(); // nor any temporary file left behind
  }

  @Test
  void whereNoCopyCanBeKeptTheGzippedFileIsRead() throws IOException {
    Path gz = MnistFixture.write(dir, NAME, true, MnistFixture.labels(20));
    Files.writeString(dir.resolve(GzipExtractions.DIR), "a file where the directory would be");

    assertThat(GzipExtractions.readable(gz)).isEqualTo(gz);
  }

  @Test
  void mnistReadsThroughTheCopiesAndErrorsStillNameTheGzippedFile() throws IOException {
    MnistFixture.writeAll(dir, true);
    assertThat(MnistDatasets.read(dir, false, UNREACHABLE).test().numExamples()).isEqualTo(MnistFixture.TEST);
    assertThat(copies()).hasSize(4);

    // valid gzip, wrong content: the copy is read, and the message names the file the user gave
    MnistFixture.write(dir, MnistDatasets.TEST_IMAGES, true, MnistFixture.labels(3));
    assertThatThrownBy(() -> MnistDatasets.read(dir, false, UNREACHABLE))
        .isInstanceOf(DataException.class)
        .hasMessageStartingWith(dir.resolve(MnistDatasets.TEST_IMAGES) + " is not an IDX image file");
  }

  /** The names in .uncompressed (none when it does not exist). */
  private List<String> copies() throws IOException {
    Path d = dir.resolve(GzipExtractions.DIR);
    if (!Files.isDirectory(d)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).toList();
    }
  }
}
