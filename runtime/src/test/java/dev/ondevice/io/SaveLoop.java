package dev.ondevice.io;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.nio.file.Path;
import java.util.Map;

/**
 * The child process of {@link KillDuringSaveTest}: saves checkpoint after checkpoint to one file
 * until it is killed. Save {@code i} holds a tensor whose every element is {@code i % 2} and the
 * metadata {@code round=i}, so that a load tells a complete file from a mixed one. Both tensors are
 * made before the first save, so that nearly all of the child's time is spent saving and a kill
 * usually lands mid-write.
 */
public final class SaveLoop {
  /** Elements of the saved tensor: 16 MB of float32, so that a kill lands mid-write. */
  static final int ELEMENTS = 4 << 20;

  private SaveLoop() {}

  /** {@code args[0]}: the file to save to, over and over. */
  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    Tensor[] parity = {
      Tensor.full(Shape.of(ELEMENTS), 0, DType.FLOAT32, Device.cpu()),
      Tensor.full(Shape.of(ELEMENTS), 1, DType.FLOAT32, Device.cpu())
    };
    System.out.println("ready");
    System.out.flush();
    for (int round = 0; ; round++) {
      Safetensors.save(
          Map.of("weight", parity[round % 2]), Map.of("round", Integer.toString(round)), file);
    }
  }
}
