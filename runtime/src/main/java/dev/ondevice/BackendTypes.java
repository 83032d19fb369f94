package dev.ondevice;

import dev.ondevice.internal.backend.DeviceId;
import dev.ondevice.internal.backend.ScalarType;

/**
 * The public value types and the backend layer's: {@link DType} and {@link ScalarType}, {@link
 * Device} and {@link DeviceId}, one to one. The core is the only place that maps them: the backend
 * layer sits below {@code dev.ondevice} and never names its types.
 */
final class BackendTypes {
  private static final Device[] CUDA = new Device[64];

  private BackendTypes() {}

  /** The backend's element type of {@code dtype}. */
  static ScalarType scalar(DType dtype) {
    return switch (dtype) {
      case BOOL -> ScalarType.BOOL;
      case INT64 -> ScalarType.INT64;
      case FLOAT32 -> ScalarType.FLOAT32;
      case FLOAT64 -> ScalarType.FLOAT64;
    };
  }

  /** The public element type of {@code type}. */
  static DType dtype(ScalarType type) {
    return switch (type) {
      case BOOL -> DType.BOOL;
      case INT64 -> DType.INT64;
      case FLOAT32 -> DType.FLOAT32;
      case FLOAT64 -> DType.FLOAT64;
    };
  }

  /** The backend's identity of {@code device}. */
  static DeviceId id(Device device) {
    return device.isCpu() ? DeviceId.CPU : new DeviceId(DeviceId.CUDA_TYPE, device.index());
  }

  /** The public device of {@code id}. */
  static Device device(DeviceId id) {
    if (id.isCpu()) {
      return Device.cpu();
    }
    int i = id.index();
    if (i < 0 || i >= CUDA.length) {
      return Device.of(DeviceType.CUDA, i);
    }
    Device d = CUDA[i];
    if (d == null) {
      d = Device.cuda(i);
      CUDA[i] = d;
    }
    return d;
  }
}
