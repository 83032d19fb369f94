package dev.ondevice;

/**
 * A CUDA device could not provide the memory a tensor needs, even after a garbage collection and
 * after its cache was given back to the driver ({@code torch.cuda.OutOfMemoryError}). The message
 * says how much was asked for, how much the device has and has free, how much tensors hold and how
 * much the caching allocator reserves, and what to do. Catch it to retry with smaller batches.
 */
public final class DeviceOutOfMemoryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** An exception with the allocator's message. */
  public DeviceOutOfMemoryException(String message) {
    super(message);
  }
}
