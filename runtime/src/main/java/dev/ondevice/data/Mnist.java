package dev.ondevice.data;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The MNIST digits (and datasets in its layout, such as Fashion-MNIST) from their IDX files: {@code
 * train-images-idx3-ubyte} and {@code train-labels-idx1-ubyte} for the training set, {@code
 * t10k-images-idx3-ubyte} and {@code t10k-labels-idx1-ubyte} for the test set, each plain or
 * gzipped ({@code .gz}).
 *
 * <pre>{@code
 * TensorDataset train = Mnist.load(Path.of("data/mnist"), true);   // 60000 examples
 * DataLoader loader = DataLoader.builder(train).batchSize(64).shuffle(0).pinMemory(true).build();
 * }</pre>
 */
public final class Mnist {
  private Mnist() {}

  /**
   * The training set ({@code train}) or the test set from the IDX files in {@code dir}: images as
   * float32 {@code [N, 1, rows, cols]} scaled to {@code [0, 1]} (grey level / 255, as torchvision's
   * {@code ToTensor}), labels as int64 {@code [N]}, on the CPU.
   *
   * @throws NoSuchFileException if a file is missing (plain or {@code .gz})
   * @throws IdxFormatException if a file is not valid IDX, is not of unsigned bytes with the
   *     expected rank (3 for images, 1 for labels), or if images and labels differ in number
   * @throws IOException if a file cannot be read
   */
  public static TensorDataset load(Path dir, boolean train) throws IOException {
    String prefix = train ? "train" : "t10k";
    Path imagesFile = find(dir, prefix + "-images-idx3-ubyte");
    Path labelsFile = find(dir, prefix + "-labels-idx1-ubyte");
    Idx.Contents images = Idx.readContents(imagesFile);
    Idx.Contents labels = Idx.readContents(labelsFile);
    requireUnsignedBytes(imagesFile, images, 3, "images [N, rows, cols]");
    requireUnsignedBytes(labelsFile, labels, 1, "labels [N]");
    if (images.dims[0] != labels.dims[0]) {
      throw new IdxFormatException(
          labelsFile,
          "holds "
              + labels.dims[0]
              + " labels but "
              + imagesFile
              + " holds "
              + images.dims[0]
              + " images");
    }
    float[] pixels = new float[images.data.length];
    for (int i = 0; i < pixels.length; i++) {
      pixels[i] = (images.data[i] & 0xFF) / 255f;
    }
    long[] classes = new long[labels.data.length];
    for (int i = 0; i < classes.length; i++) {
      classes[i] = labels.data[i] & 0xFF;
    }
    Shape imageShape = Shape.of(images.dims[0], 1, images.dims[1], images.dims[2]);
    return new TensorDataset(
        Tensor.of(pixels, imageShape, Device.cpu()),
        Tensor.of(classes, Shape.of(classes.length), Device.cpu()));
  }

  private static Path find(Path dir, String name) throws NoSuchFileException {
    Path plain = dir.resolve(name);
    Path gzipped = dir.resolve(name + ".gz");
    if (Files.isRegularFile(plain)) {
      return plain;
    }
    if (Files.isRegularFile(gzipped)) {
      return gzipped;
    }
    throw new NoSuchFileException(
        plain.toString(), null, "Mnist.load: neither " + plain + " nor " + gzipped + " exists");
  }

  private static void requireUnsignedBytes(Path file, Idx.Contents c, int rank, String what)
      throws IdxFormatException {
    if (c.type != Idx.ElementType.UNSIGNED_BYTE || c.dims.length != rank) {
      throw new IdxFormatException(
          file,
          "expected MNIST "
              + what
              + " of unsigned bytes, found type "
              + c.type
              + " with sizes "
              + Arrays.toString(c.dims));
    }
  }
}
