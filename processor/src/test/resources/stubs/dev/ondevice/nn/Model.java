package dev.ondevice.nn;

import dev.ondevice.Device;
import dev.ondevice.annotations.InPlace;
import dev.ondevice.annotations.ReturnsDevice;

/** Stub of the runtime's Model. */
public abstract class Model {
  @InPlace
  public void toDevice(Device device) {}

  @ReturnsDevice(ReturnsDevice.Source.OF_RECEIVER)
  public Device device() {
    return null;
  }
}
