package dev.ondevice.data;

/**
 * Thrown by a {@link DataLoader}'s iterator when building a batch failed, on the prefetch thread or
 * on the caller's; {@link #getCause()} is the original exception.
 */
public final class DataLoaderException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** An exception with {@code message} and the original {@code cause}. */
  public DataLoaderException(String message, Throwable cause) {
    super(message, cause);
  }
}
