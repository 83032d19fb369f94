package dev.ondevice.internal.backend;

/**
 * Makes the public exception for a device out of memory. The core registers one in {@code
 * META-INF/services} (the exception's class sits above this layer, which cannot name it); {@link
 * Backends#outOfMemory} finds it.
 */
public interface OutOfMemoryFactory {
  /** The exception for {@code message}, caused by {@code cause} (null for none). */
  RuntimeException create(String message, Throwable cause);
}
