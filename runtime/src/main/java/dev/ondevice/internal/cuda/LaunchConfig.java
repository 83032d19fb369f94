package dev.ondevice.internal.cuda;

/**
 * Grid and block sizes of a kernel launch. Elementwise kernels loop over their elements with a
 * grid-stride loop, so their grid is capped at a few waves of the device's multiprocessors: more
 * blocks only add scheduling. Internal to the runtime.
 *
 * @param gridX blocks along x
 * @param gridY blocks along y
 * @param gridZ blocks along z
 * @param block threads per block
 */
record LaunchConfig(int gridX, int gridY, int gridZ, int block) {
  /** Threads per block of the elementwise kernels. */
  static final int THREADS = 256;

  /** Resident blocks per multiprocessor the grid-stride cap allows for. */
  static final int BLOCKS_PER_SM = 8;

  /** The hardware's limit on grid.y and grid.z. */
  static final int MAX_GRID_YZ = 65535;

  LaunchConfig {
    if (gridX < 1
        || gridY < 1
        || gridZ < 1
        || gridY > MAX_GRID_YZ
        || gridZ > MAX_GRID_YZ
        || block < 1
        || block > 1024) {
      throw new IllegalArgumentException(
          "Invalid launch: grid " + gridX + "x" + gridY + "x" + gridZ + ", block " + block);
    }
  }

  /**
   * One thread per element of {@code n}, at most {@link #BLOCKS_PER_SM} blocks per multiprocessor.
   */
  static LaunchConfig elementwise(long n, int multiprocessors) {
    long blocks = Math.max(1, (n + THREADS - 1) / THREADS);
    long cap = (long) Math.max(1, multiprocessors) * BLOCKS_PER_SM;
    return new LaunchConfig((int) Math.min(blocks, cap), 1, 1, THREADS);
  }

  /**
   * {@code blocks} blocks of {@code threads}, capped like {@link #elementwise} for grid-stride
   * kernels.
   */
  static LaunchConfig blocks(long blocks, int threads, int multiprocessors) {
    long cap = (long) Math.max(1, multiprocessors) * BLOCKS_PER_SM * 4;
    return new LaunchConfig((int) Math.max(1, Math.min(blocks, cap)), 1, 1, threads);
  }
}
