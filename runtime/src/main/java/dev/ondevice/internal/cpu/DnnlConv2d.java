package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.Conv2dKernels;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.Window2d;
import java.util.HashMap;
import java.util.Map;

/**
 * Float32 convolutions of a {@link CpuBackend} by oneDNN: the primitives of each shape are made on
 * its first use and kept for the life of the process (one set per shape, shared by every host
 * device), and each call runs them on the backend's stream or the calling thread.
 */
final class DnnlConv2d implements Conv2dKernels {
  private static final Map<DnnlConvolution.Key, DnnlConvolution> PRIMITIVES = new HashMap<>();

  private final CpuBackend backend;
  private final Dnnl dnnl;

  DnnlConv2d(CpuBackend backend, Dnnl dnnl) {
    this.backend = backend;
    this.dnnl = dnnl;
  }

  @Override
  public void forward(Strided input, Strided weight, Strided bias, Window2d window, Strided out) {
    DnnlConvolution.Key key = key(input, weight, window);
    backend.run(
        () -> {
          synchronized (dnnl) {
            try (DnnlScratch scratch = new DnnlScratch(backend)) {
              primitives(key).forward(input, weight, bias, out, scratch);
            }
          }
        },
        input,
        weight,
        bias == null ? out : bias,
        out);
  }

  @Override
  public void backward(
      Strided input,
      Strided weight,
      Strided gradOut,
      Window2d window,
      Strided gradInput,
      Strided gradWeight,
      Strided gradBias) {
    DnnlConvolution.Key key = key(input, weight, window);
    backend.run(
        () -> {
          synchronized (dnnl) {
            try (DnnlScratch scratch = new DnnlScratch(backend)) {
              primitives(key)
                  .backward(input, weight, gradOut, gradInput, gradWeight, gradBias, scratch);
            }
          }
        },
        input,
        weight,
        gradOut);
  }

  private DnnlConvolution primitives(DnnlConvolution.Key key) {
    return PRIMITIVES.computeIfAbsent(key, k -> new DnnlConvolution(dnnl, k));
  }

  private static DnnlConvolution.Key key(Strided input, Strided weight, Window2d window) {
    return new DnnlConvolution.Key(
        input.size(0), input.size(1), input.size(2), input.size(3), weight.size(0), window);
  }
}
