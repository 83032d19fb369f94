package dev.ondevice.internal.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.internal.backend.ScalarType;
import org.junit.jupiter.api.Test;

/**
 * Launch configurations and the GEMM and reduction plans, for a device of 132 multiprocessors (an
 * H200).
 */
class LaunchPlanTest {
  private static final int SMS = 132;

  @Test
  void elementwiseGridsCoverTheElementsUpToAFewWaves() {
    assertEquals(new LaunchConfig(1, 1, 1, 256), LaunchConfig.elementwise(1, SMS));
    assertEquals(new LaunchConfig(1, 1, 1, 256), LaunchConfig.elementwise(0, SMS));
    assertEquals(4, LaunchConfig.elementwise(1000, SMS).gridX());
    assertEquals(
        SMS * LaunchConfig.BLOCKS_PER_SM,
        LaunchConfig.elementwise(1L << 30, SMS).gridX(),
        "a grid-stride loop does the rest");
  }

  @Test
  void invalidLaunchesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new LaunchConfig(1, 65536, 1, 256));
    assertThrows(IllegalArgumentException.class, () -> new LaunchConfig(1, 1, 1, 2048));
    assertThrows(IllegalArgumentException.class, () -> new LaunchConfig(0, 1, 1, 256));
  }

  @Test
  void largeProductsGetTheLargestTileWithoutSplits() {
    CudaGemm.Plan p = CudaGemm.plan(ScalarType.FLOAT32, 1, 4096, 4096, 4096, SMS);
    assertEquals(128, p.tile());
    assertEquals(1, p.splits());
    assertEquals(4096, p.chunk());
  }

  @Test
  void smallerProductsGetSmallerTilesSoThatEveryMultiprocessorWorks() {
    assertEquals(
        64,
        CudaGemm.plan(ScalarType.FLOAT32, 1, 768, 768, 64, SMS).tile(),
        "12x12 = 144 tiles of 64");
    assertEquals(32, CudaGemm.plan(ScalarType.FLOAT32, 1, 128, 512, 256, SMS).tile());
    assertEquals(
        64,
        CudaGemm.plan(ScalarType.FLOAT64, 1, 4096, 4096, 4096, SMS).tile(),
        "float64's largest tile");
    assertEquals(32, CudaGemm.plan(ScalarType.INT64, 1, 4096, 4096, 4096, SMS).tile());
  }

  @Test
  void fewTilesOverALongKSplitKIntoChunksOfWholeSlices() {
    CudaGemm.Plan p = CudaGemm.plan(ScalarType.FLOAT32, 1, 128, 512, 784, SMS);
    assertEquals(32, p.tile());
    assertEquals(3, p.splits(), "64 tiles, K = 784: 3 splits of at least 256");
    assertEquals(0, p.chunk() % CudaGemm.SLICE);
    assertTrue((long) p.splits() * p.chunk() >= 784);
    assertTrue((long) (p.splits() - 1) * p.chunk() < 784, "no empty split");
    CudaGemm.Plan one = CudaGemm.plan(ScalarType.FLOAT32, 1, 1, 1, 100_000, SMS);
    assertEquals(CudaGemm.MAX_SPLITS, one.splits());
    assertEquals(
        1, CudaGemm.plan(ScalarType.FLOAT32, 1, 64, 64, 300, SMS).splits(), "K too short to split");
  }

  @Test
  void reductionsPickThreadsOrBlocks() {
    assertTrue(CudaReductions.plan(100_000, 10, 1, SMS).perThread(), "short rows: a thread each");
    assertTrue(
        CudaReductions.plan(100_000, 1000, 100_000, SMS).perThread(),
        "many strided columns: a thread each");
    CudaReductions.Plan rows = CudaReductions.plan(100_000, 1000, 1, SMS);
    assertFalse(rows.perThread(), "contiguous rows: a block each");
    assertEquals(1, rows.parts());
    CudaReductions.Plan all = CudaReductions.plan(1, 1 << 24, 1, SMS);
    assertEquals(4 * SMS, all.parts(), "one long reduction is split over the whole device");
    assertEquals(
        2,
        CudaReductions.plan(1, 2 * 256 * 16, 1, SMS).parts(),
        "into parts of 16 elements a thread");
  }
}
