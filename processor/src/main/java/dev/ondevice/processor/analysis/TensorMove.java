package dev.ondevice.processor.analysis;

/**
 * A tensor move the interpreter evaluated ({@code x.to(device)}, {@code x.cuda()}, {@code
 * x.cpu()}): a fact the move checks read.
 *
 * @param call the call
 * @param receiver the value moved
 * @param target where it goes
 * @param nonBlocking whether the copy is asked to be non-blocking
 * @param namesDevice whether the call takes its device as an argument ({@code to(device)}, not
 *     {@code cuda()})
 * @param toTheCpuByConstruction whether the device is a field every object of its class holds as
 *     the CPU by its constructors' choice ({@link ConstructedDevices}): a copy the code did not
 *     mean
 */
record TensorMove(
    MethodInterpreter.Call call,
    Value receiver,
    Place target,
    boolean nonBlocking,
    boolean namesDevice,
    boolean toTheCpuByConstruction) {

  /**
   * Whether the moved tensor is on a device known or named in the code (a copy from it waits for
   * that device).
   */
  boolean fromDevice() {
    return receiver.place().kind() == Place.Kind.FIXED
        || receiver.place().kind() == Place.Kind.SYMBOL;
  }
}
