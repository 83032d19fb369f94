package dev.ondevice.io;

import dev.ondevice.Device;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Where the tensors of a checkpoint land when it is loaded: PyTorch's {@code map_location}. Every
 * load takes one, so that no checkpoint silently lands on a device that may not exist here (a
 * checkpoint saved on {@code cuda:1} of a training machine, loaded on a laptop).
 *
 * <pre>{@code
 * Checkpoint.load(path, MapLocation.to(Device.cpu()));                      // everything on the CPU
 * Checkpoint.load(path, MapLocation.to(Device.cudaIfAvailable()));          // device-agnostic
 * Checkpoint.load(path, MapLocation.remap(Map.of(Device.cuda(1), Device.cuda(0))));
 * }</pre>
 */
public final class MapLocation {
  private final Device everything;
  private final Map<Device, Device> mapping;

  private MapLocation(Device everything, Map<Device, Device> mapping) {
    this.everything = everything;
    this.mapping = mapping;
  }

  /** Every tensor onto {@code device}, wherever it was saved: {@code map_location=device}. */
  public static MapLocation to(Device device) {
    return new MapLocation(
        Objects.requireNonNull(device, "MapLocation.to: device is null").resolved(), null);
  }

  /**
   * Each tensor from the device it was saved on to the device {@code mapping} gives for it: {@code
   * map_location={'cuda:1': 'cuda:0'}}. Unlike PyTorch, a saved device missing from the mapping is
   * an error rather than a silent "stay where you were", except the CPU, which exists everywhere
   * and maps to itself unless the mapping says otherwise. {@code cuda} (without an index) stands
   * for {@code cuda:0}, as a key or a value.
   *
   * @throws IllegalArgumentException for an empty mapping, or a null key or value
   */
  public static MapLocation remap(Map<Device, Device> mapping) {
    Objects.requireNonNull(mapping, "MapLocation.remap: mapping is null");
    if (mapping.isEmpty()) {
      throw new IllegalArgumentException(
          "MapLocation.remap: the mapping is empty; use MapLocation.to(device) to put"
              + " everything on one device");
    }
    Map<Device, Device> resolved = new LinkedHashMap<>();
    for (Map.Entry<Device, Device> e : mapping.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        throw new IllegalArgumentException(
            "MapLocation.remap: the mapping " + mapping + " has a null device");
      }
      resolved.put(e.getKey().resolved(), e.getValue().resolved());
    }
    return new MapLocation(null, resolved);
  }

  /**
   * The device a tensor saved on {@code saved} lands on.
   *
   * @throws IllegalArgumentException if this is a mapping that does not map {@code saved}, naming
   *     it
   */
  public Device target(Device saved) {
    if (everything != null) {
      return everything;
    }
    Device d = mapping.get(saved.resolved());
    if (d != null) {
      return d;
    }
    if (saved.isCpu()) {
      return saved;
    }
    throw new IllegalArgumentException(
        "the mapping "
            + mapping
            + " does not say where tensors saved on "
            + saved
            + " go; add "
            + saved
            + " to MapLocation.remap, or use MapLocation.to(device)");
  }

  /** {@code to(cuda:0)} or {@code remap({cuda:1=cuda:0})}. */
  @Override
  public String toString() {
    return everything != null ? "to(" + everything + ")" : "remap(" + mapping + ")";
  }
}
