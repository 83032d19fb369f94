package dev.ondevice.data;

import java.io.IOException;
import java.nio.file.Path;

/** Thrown when a file is not a valid IDX file; the message names the file and what is wrong. */
public final class IdxFormatException extends IOException {
  private static final long serialVersionUID = 1L;
  private final transient Path file;

  /** An exception about {@code file}: {@code problem} says what is wrong. */
  public IdxFormatException(Path file, String problem) {
    super(file + ": " + problem);
    this.file = file;
  }

  /** As {@link #IdxFormatException(Path, String)}, with the exception that revealed the problem. */
  public IdxFormatException(Path file, String problem, Throwable cause) {
    super(file + ": " + problem, cause);
    this.file = file;
  }

  /** The file. */
  public Path file() {
    return file;
  }
}
