package dev.ondevice.data;

import static dev.ondevice.data.IdxTest.concat;
import static dev.ondevice.data.IdxTest.gzip;
import static dev.ondevice.data.IdxTest.header;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ondevice.DType;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MNIST from IDX files: small files written here, and the real files when the data folder is there
 * ({@code -Dondevice.mnist.dir}, or {@code shared/data/mnist} in a folder above the working
 * directory); without it those tests are skipped, not passed.
 */
class MnistTest {
  @TempDir Path dir;

  /** The real MNIST folder, or null. */
  private static Path realMnist() {
    String property = System.getProperty("ondevice.mnist.dir");
    if (property != null) {
      return Files.isDirectory(Path.of(property)) ? Path.of(property) : null;
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path candidate = p.resolve("shared/data/mnist");
      if (Files.isRegularFile(candidate.resolve("train-labels-idx1-ubyte.gz"))) {
        return candidate;
      }
    }
    return null;
  }

  @Test
  void theRealTrainingSet() throws IOException {
    Path mnist = realMnist();
    assumeTrue(mnist != null, "the MNIST files are not here (set -Dondevice.mnist.dir)");
    TensorDataset train = Mnist.load(mnist, true);
    assertEquals(60000, train.size());
    assertEquals(Shape.of(60000, 1, 28, 28), train.inputs().shape());
    assertEquals(DType.FLOAT32, train.inputs().dtype());
    assertEquals(Shape.of(60000), train.targets().shape());
    assertEquals(DType.INT64, train.targets().dtype());
    assertEquals(5, train.targets().get(0).itemAsLong(), "the first training label is a 5");
    assertEquals(0.0, train.inputs().min().item());
    assertEquals(1.0, train.inputs().max().item());
    Tensor counts = Tensor.oneHot(train.targets(), 10).sum(0);
    assertEquals(60000, counts.sum().itemAsLong());
    assertEquals(6742, counts.get(1).itemAsLong(), "the well-known number of ones");
  }

  @Test
  void theRealTestSet() throws IOException {
    Path mnist = realMnist();
    assumeTrue(mnist != null, "the MNIST files are not here (set -Dondevice.mnist.dir)");
    TensorDataset test = Mnist.load(mnist, false);
    assertEquals(10000, test.size());
    assertEquals(Shape.of(10000, 1, 28, 28), test.inputs().shape());
    assertEquals(7, test.targets().get(0).itemAsLong(), "the first test label is a 7");
  }

  private void writeSet(String prefix, byte[] images, byte[] labels, boolean gzipped)
      throws IOException {
    Files.write(
        dir.resolve(prefix + "-images-idx3-ubyte" + (gzipped ? ".gz" : "")),
        gzipped ? gzip(images) : images);
    Files.write(
        dir.resolve(prefix + "-labels-idx1-ubyte" + (gzipped ? ".gz" : "")),
        gzipped ? gzip(labels) : labels);
  }

  @Test
  void imagesAreScaledTo0To1AndGetAChannel() throws IOException {
    byte[] images =
        concat(
            header(0x08, 3, 2, 2),
            new byte[] {0, (byte) 255, 51, 102, 1, 2, 3, 4, (byte) 128, 0, 0, (byte) 254});
    writeSet("train", images, concat(header(0x08, 3), new byte[] {5, 0, 9}), true);
    writeSet(
        "t10k",
        concat(header(0x08, 1, 2, 2), new byte[] {7, 7, 7, 7}),
        concat(header(0x08, 1), new byte[] {7}),
        false);

    TensorDataset train = Mnist.load(dir, true);
    assertEquals(Shape.of(3, 1, 2, 2), train.inputs().shape());
    float[] expected = new float[12];
    int[] raw = {0, 255, 51, 102, 1, 2, 3, 4, 128, 0, 0, 254};
    for (int i = 0; i < raw.length; i++) {
      expected[i] = raw[i] / 255f;
    }
    assertArrayEquals(expected, train.inputs().toFloatArray());
    assertArrayEquals(new long[] {5, 0, 9}, train.targets().toLongArray());

    TensorDataset test = Mnist.load(dir, false);
    assertEquals(1, test.size());
    assertArrayEquals(new long[] {7}, test.targets().toLongArray());
  }

  @Test
  void imagesAndLabelsMustAgree() throws IOException {
    writeSet(
        "train",
        concat(header(0x08, 2, 1, 1), new byte[] {1, 2}),
        concat(header(0x08, 3), new byte[] {1, 2, 3}),
        false);
    IdxFormatException e = assertThrows(IdxFormatException.class, () -> Mnist.load(dir, true));
    assertTrue(
        e.getMessage().contains("3 labels") && e.getMessage().contains("2 images"), e.getMessage());
    assertTrue(e.getMessage().contains("train-labels-idx1-ubyte"), e.getMessage());
  }

  @Test
  void filesOfTheWrongTypeOrRankAreRejected() throws IOException {
    writeSet(
        "train",
        concat(header(0x08, 2, 2), new byte[4]),
        concat(header(0x08, 2), new byte[2]),
        false);
    IdxFormatException rank = assertThrows(IdxFormatException.class, () -> Mnist.load(dir, true));
    assertTrue(
        rank.getMessage().contains("train-images-idx3-ubyte: expected MNIST images"),
        rank.getMessage());

    writeSet(
        "train",
        concat(header(0x08, 2, 1, 1), new byte[2]),
        concat(header(0x0C, 2), new byte[8]),
        false);
    IdxFormatException type = assertThrows(IdxFormatException.class, () -> Mnist.load(dir, true));
    assertTrue(type.getMessage().contains("0x0C (int)"), type.getMessage());
  }

  @Test
  void aMissingFileNamesBothCandidates() {
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> Mnist.load(dir, true));
    assertTrue(e.getMessage().contains("train-images-idx3-ubyte.gz"), e.getMessage());
  }
}
