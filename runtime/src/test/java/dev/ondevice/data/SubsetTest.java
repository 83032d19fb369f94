package dev.ondevice.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ondevice.Tensor;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Subsets and random splits: which examples, in which order, reproducibly. */
class SubsetTest {
  /** Ten examples whose input is their index and whose target is ten times it. */
  private static TensorDataset numbered() {
    double[] x = IntStream.range(0, 10).asDoubleStream().toArray();
    long[] y = IntStream.range(0, 10).mapToLong(i -> 10L * i).toArray();
    return new TensorDataset(Tensor.of(x, 10, 1), Tensor.of(y, 10));
  }

  @Test
  void aSubsetSeesTheExamplesAtItsIndicesInOrder() {
    Subset s = new Subset(numbered(), 7, 2, 5);
    assertEquals(3, s.size());
    assertEquals(2.0, s.get(1).input().item());
    assertEquals(50L, s.get(2).target().itemAsLong());
    Batch b = s.getBatch(new int[] {2, 0});
    assertArrayEquals(new double[] {5, 7}, b.inputs().toDoubleArray());
    assertArrayEquals(new long[] {50, 70}, b.targets().toLongArray());
    Batch all = DataLoader.builder(s).batchSize(3).build().iterator().next();
    assertArrayEquals(new double[] {7, 2, 5}, all.inputs().toDoubleArray());
    assertThrows(IndexOutOfBoundsException.class, () -> new Subset(numbered(), 10));
    assertThrows(IndexOutOfBoundsException.class, () -> s.get(3));
    assertThrows(IndexOutOfBoundsException.class, () -> s.getBatch(new int[] {-1}));
  }

  @Test
  void aRandomSplitPartitionsTheDatasetTheSameWayForTheSameSeed() {
    List<Subset> parts = Subset.randomSplit(numbered(), 42, 7, 3);
    assertEquals(7, parts.get(0).size());
    assertEquals(3, parts.get(1).size());
    int[] together =
        IntStream.concat(
                Arrays.stream(parts.get(0).indices()), Arrays.stream(parts.get(1).indices()))
            .sorted()
            .toArray();
    assertArrayEquals(
        IntStream.range(0, 10).toArray(), together, "every example in exactly one part");
    assertArrayEquals(
        parts.get(0).indices(), Subset.randomSplit(numbered(), 42, 7, 3).get(0).indices());
    assertArrayEquals(
        DataLoader.order(10, true, 42, 0),
        IntStream.concat(
                Arrays.stream(parts.get(0).indices()), Arrays.stream(parts.get(1).indices()))
            .toArray(),
        "the permutation of a loader shuffled with the seed");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Subset.randomSplit(numbered(), 1, 8, 3));
    assertEquals(
        "randomSplit: the sizes [8, 3] add up to 11, but the dataset has 10 examples",
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Subset.randomSplit(numbered(), 1, 11, -1));
  }
}
