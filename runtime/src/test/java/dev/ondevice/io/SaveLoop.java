package dev.ondevice.io;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.nio.file.Path;
import java.util.Map;

/**
 * The child process of {@link KillDuringSaveTest}: saves checkpoint after checkpoint to one file
 * until it is killed. Save {@code i} holds a tensor whose every element is {@code i} and the
 * metadata {@code round=i}, so that a load tells a complete file from a mixed one.
 */
public final class SaveLoop {
  /** Elements of the saved tensor: 16 MB of float32, so that a kill lands mid-write. */
  static final int ELEMENTS = 4 << 20;

  private SaveLoop() {}

  /** {@code args[0]}: the file to save to, over and over. */
  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    System.out.println("ready");
    System.out.flush();
    for (int round = 0; ; round++) {
      Tensor t = Tensor.full(Shape.of(ELEMENTS), round, DType.FLOAT32, Device.cpu());
      Safetensors.save(Map.of("weight", t), Map.of("round", Integer.toString(round)), file);
    }
  }
}
