package dev.ondevice.backend.cuda;

/**
 * A device could not provide the memory a tensor needs, even after its cache was emptied. The
 * message says how much was asked for, how much tensors hold, how much the caching allocator
 * reserves, and what to do.
 */
public final class DeviceOutOfMemoryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  DeviceOutOfMemoryException(String message) {
    super(message);
  }
}
