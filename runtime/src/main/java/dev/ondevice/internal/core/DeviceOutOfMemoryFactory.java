package dev.ondevice.internal.core;

import dev.ondevice.DeviceOutOfMemoryException;
import dev.ondevice.internal.backend.OutOfMemoryFactory;

/**
 * Gives the backends the public {@link DeviceOutOfMemoryException} to throw, registered in {@code
 * META-INF/services}: the backend layer sits below {@code dev.ondevice} and cannot name it.
 */
public final class DeviceOutOfMemoryFactory implements OutOfMemoryFactory {
  /** A factory; {@link java.util.ServiceLoader} makes it. */
  public DeviceOutOfMemoryFactory() {}

  @Override
  public RuntimeException create(String message, Throwable cause) {
    return cause == null
        ? new DeviceOutOfMemoryException(message)
        : new DeviceOutOfMemoryException(message, cause);
  }
}
