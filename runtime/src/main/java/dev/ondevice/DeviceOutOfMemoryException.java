package dev.ondevice;

/**
 * A device could not provide the memory a tensor needs, even after a garbage collection and after
 * its cache was given back ({@code torch.cuda.OutOfMemoryError}): a CUDA device, or the CPU, whose
 * tensors live in the JDK's direct memory (limited by {@code -XX:MaxDirectMemorySize}). The message
 * says how much was asked for, how much tensors hold and how much the caching allocator held, the
 * device's limit, and what to do. Unlike the JDK's {@link OutOfMemoryError}, it is an exception:
 * catch it to retry with smaller batches.
 */
public final class DeviceOutOfMemoryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** An exception with the allocator's message. */
  public DeviceOutOfMemoryException(String message) {
    super(message);
  }

  /** An exception with the allocator's message and the error behind it. */
  public DeviceOutOfMemoryException(String message, Throwable cause) {
    super(message, cause);
  }
}
