package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.data.DataLoader;
import dev.ondevice.data.Dataset;
import dev.ondevice.data.Example;
import dev.ondevice.data.Idx;
import dev.ondevice.data.IdxFormatException;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.io.SafetensorsException;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.nn.StateDictException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input that used to fail without naming the operation, the file or the problem, or not fail at
 * all.
 */
class NamedErrorsTest {
  @TempDir Path dir;

  @Test
  void aDirectoryGivenForAFileIsNamed() throws Exception {
    Path folder = Files.createDirectory(dir.resolve("ckpt"));
    SafetensorsException s =
        assertThrows(
            SafetensorsException.class,
            () -> Checkpoint.load(folder, MapLocation.to(Device.cpu())));
    assertEquals(
        folder + ": is a directory, not a safetensors file; pass the file inside it",
        s.getMessage());
    IdxFormatException i = assertThrows(IdxFormatException.class, () -> Idx.read(folder));
    assertEquals(
        folder + ": is a directory, not an IDX file; pass the file inside it", i.getMessage());
  }

  @Test
  void aNegativeDatasetSizeIsNamed() {
    Dataset broken =
        new Dataset() {
          @Override
          public int size() {
            return -3;
          }

          @Override
          public Example get(int index) {
            throw new AssertionError("not called");
          }
        };
    DataLoader loader = DataLoader.builder(broken).build();
    IllegalStateException e = assertThrows(IllegalStateException.class, loader::iterator);
    assertTrue(
        e.getMessage()
            .endsWith(".size() returned -3; a dataset's size is its number of examples, >= 0"),
        e.getMessage());
    assertThrows(IllegalStateException.class, loader::numBatches);
  }

  @Test
  void nullsNameTheOperation() {
    assertEquals(
        "cat: tensor 1 of 2 is null",
        assertThrows(
                NullPointerException.class, () -> Tensor.cat(Arrays.asList(Tensor.ones(2), null)))
            .getMessage());
    assertEquals(
        "cat: the list of tensors is null",
        assertThrows(NullPointerException.class, () -> Tensor.cat(null)).getMessage());
    assertEquals(
        "stack: tensor 0 of 1 is null",
        assertThrows(NullPointerException.class, () -> Tensor.stack(Arrays.asList((Tensor) null)))
            .getMessage());
    assertEquals(
        "Tensor.of: the data array is null",
        assertThrows(NullPointerException.class, () -> Tensor.of((float[]) null)).getMessage());
    assertEquals(
        "Tensor.of: the data array is null",
        assertThrows(NullPointerException.class, () -> Tensor.of((long[]) null, 2)).getMessage());
    assertEquals(
        "Tensor.of: row 1 is null",
        assertThrows(NullPointerException.class, () -> Tensor.of(new double[][] {{1}, null}))
            .getMessage());
    assertEquals(
        "Sequential: layer 1 of 3 is null",
        assertThrows(
                NullPointerException.class,
                () -> new Sequential(new Linear(2, 2), null, new ReLU()))
            .getMessage());
    assertEquals(
        "Sequential: the array of layers is null",
        assertThrows(NullPointerException.class, () -> new Sequential((Layer[]) null))
            .getMessage());
  }

  @Test
  void anUnspecifiedSizeOfAnEmptyTensorIsAmbiguousOnlyNextToAZero() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Tensor.zeros(0, 3).reshape(0, -1));
    assertEquals(
        "reshape: cannot reshape a tensor of 0 elements (shape [0, 3]) into shape [0, -1], because the"
            + " unspecified size -1 could be any value; give every size",
        e.getMessage());
    // PyTorch's infer_size: the other sizes (2) divide the 0 elements, so -1 is 0.
    assertEquals(Shape.of(2, 0), Tensor.zeros(0, 3).reshape(2, -1).shape());
    assertEquals(Shape.of(2, 0), Tensor.zeros(0, 3).reshape(2, 0).shape());
  }

  @Test
  void aRangeToNanOrInfinityIsRejected() {
    assertEquals(
        "arange: unsupported range 0.0 -> NaN; start and end must be finite numbers",
        assertThrows(
                IllegalArgumentException.class,
                () -> Tensor.arange(0, Double.NaN, 1, DType.FLOAT32, Device.cpu()))
            .getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> Tensor.arange(Double.NEGATIVE_INFINITY, 0, 1, DType.FLOAT32, Device.cpu()));
  }

  @Test
  void printingTenMillionElementsFormatsOnlyThosePrinted() {
    Tensor big = Tensor.arange(0, 10_000_000, 1, DType.FLOAT32, Device.cpu()).reshape(1000, 10_000);
    String s = assertTimeoutPreemptively(Duration.ofSeconds(5), big::toString);
    assertEquals(
        """
        tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.9970e+03, 9.9980e+03, 9.9990e+03],
                [1.0000e+04, 1.0001e+04, 1.0002e+04,  ..., 1.9997e+04, 1.9998e+04, 1.9999e+04],
                [2.0000e+04, 2.0001e+04, 2.0002e+04,  ..., 2.9997e+04, 2.9998e+04, 2.9999e+04],
                ...,
                [9.9700e+06, 9.9700e+06, 9.9700e+06,  ..., 9.9800e+06, 9.9800e+06, 9.9800e+06],
                [9.9800e+06, 9.9800e+06, 9.9800e+06,  ..., 9.9900e+06, 9.9900e+06, 9.9900e+06],
                [9.9900e+06, 9.9900e+06, 9.9900e+06,  ..., 1.0000e+07, 1.0000e+07, 1.0000e+07]])""",
        s);
  }

  /** A model of one Linear layer. */
  static final class One extends Model {
    final Linear fc = new Linear(2, 2);

    Tensor forward(Tensor x) {
      return fc.forward(x);
    }
  }

  @Test
  void aStateDictOfManyStrangersGivesAShortMessage() {
    Map<String, Tensor> state = new HashMap<>(new One().stateDict());
    Tensor t = Tensor.zeros(1);
    for (int i = 0; i < 200_000; i++) {
      state.put("stranger" + i, t);
    }
    StateDictException e =
        assertThrows(StateDictException.class, () -> new One().loadStateDict(state, true));
    assertEquals(200_000, e.unexpectedKeys().size());
    assertTrue(e.getMessage().length() < 1000, e.getMessage().length() + " characters");
    assertTrue(e.getMessage().contains(", ... (200000 in all)"), e.getMessage());
    assertEquals(List.of(), e.missingKeys());
  }
}
