package dev.ondevice.io;

import java.io.IOException;

/**
 * Thrown when a safetensors file (or checkpoint) cannot be read or written: it is not valid
 * safetensors, holds something this runtime cannot represent, or writing it failed. The message
 * names the file and the problem.
 */
public final class SafetensorsException extends IOException {
  private static final long serialVersionUID = 1L;

  /** The file (or {@code <bytes>}) the problem is in. */
  private final String source;

  /**
   * An exception about {@code source} (a file name, or {@code <bytes>}): {@code problem} says what.
   */
  public SafetensorsException(String source, String problem) {
    super(source + ": " + problem);
    this.source = source;
  }

  /** As {@link #SafetensorsException(String, String)}, with the exception behind the problem. */
  public SafetensorsException(String source, String problem, Throwable cause) {
    super(source + ": " + problem, cause);
    this.source = source;
  }

  /** The file (or {@code <bytes>}) the problem is in. */
  public String source() {
    return source;
  }
}
