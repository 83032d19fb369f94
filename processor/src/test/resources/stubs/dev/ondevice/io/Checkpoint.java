package dev.ondevice.io;

import dev.ondevice.annotations.KeepsDevice;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Optimizer;
import java.nio.file.Path;

/** Stub of the runtime's Checkpoint: restoring copies values into the model where it is. */
public final class Checkpoint {
  public static Checkpoint load(Path file, MapLocation location) {
    return null;
  }

  public java.util.Map<String, dev.ondevice.Tensor> stateDict() {
    return null;
  }

  public static Checkpoint restore(Path file, @KeepsDevice Model model, Optimizer optimizer, MapLocation location) {
    return null;
  }
}
