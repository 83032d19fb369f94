package dev.ondevice;

import dev.ondevice.internal.backend.Backends;

/**
 * The CPU backend, as {@code torch.get_num_threads} and {@code torch.__config__}: how many threads
 * the kernels use and what runs matrix products. For benchmarks and logs; tensors need none of it.
 */
public final class Cpu {
  private Cpu() {}

  /**
   * The number of threads the CPU kernels split their work over (the available processors, or
   * {@code -Dondevice.cpu.threads}).
   */
  public static int threads() {
    return Backends.cpu().threads();
  }

  /**
   * What runs matrix products on the CPU, for people: OpenBLAS and its version, or why the Java
   * kernel runs them.
   */
  public static String matmulLibrary() {
    return Backends.cpu().matmulLibrary();
  }
}
