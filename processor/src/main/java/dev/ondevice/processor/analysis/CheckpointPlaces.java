package dev.ondevice.processor.analysis;

/**
 * Where the tensors of a checkpoint are: {@code Checkpoint.load(file, MapLocation.to(d))} puts them
 * on {@code d}, and its {@code stateDict()} holds them there, as PyTorch's {@code torch.load(f,
 * map_location=d)}. A library model of the runtime's {@code io} package: values flow through the
 * location and the checkpoint as they would through a device and a container.
 */
final class CheckpointPlaces {
  private CheckpointPlaces() {}

  /**
   * The value of a call of a checkpoint method ({@link RuntimeTypes#checkpointRole}), or null for
   * any other call.
   */
  static Value of(MethodInterpreter.Call c, RuntimeTypes rt) {
    return switch (rt.checkpointRole(c.method)) {
      case LOCATION -> c.arguments.size() == 1 ? Value.on(c.arguments.get(0).place()) : null;
      case LOAD ->
          c.arguments.size() == 2 && c.arguments.get(1).place().isKnown()
              ? Value.on(c.arguments.get(1).place())
              : null;
      case TENSORS ->
          c.receiver != null && c.receiver.place().isKnown() ? Value.on(c.receiver.place()) : null;
      case NONE -> null;
    };
  }
}
