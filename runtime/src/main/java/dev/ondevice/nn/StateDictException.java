package dev.ondevice.nn;

import java.util.List;

/**
 * Thrown when a state dict does not fit a model: missing keys and unexpected keys (when loading
 * strictly; a non-strict load skips them, and they are not listed) and keys whose shapes differ.
 * Nothing is copied when it is thrown.
 */
public final class StateDictException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final List<String> missingKeys;
  private final List<String> unexpectedKeys;
  private final List<String> mismatchedKeys;

  StateDictException(String modelName, List<String> missing, List<String> unexpected, List<String> mismatched,
      List<String> mismatchDetails) {
    super(message(modelName, missing, unexpected, mismatchDetails));
    this.missingKeys = List.copyOf(missing);
    this.unexpectedKeys = List.copyOf(unexpected);
    this.mismatchedKeys = List.copyOf(mismatched);
  }

  private static String message(String modelName, List<String> missing, List<String> unexpected,
      List<String> details) {
    StringBuilder sb = new StringBuilder("Error(s) in loading the state dict of " + modelName + ":");
    if (!missing.isEmpty()) {
      sb.append("\n\tMissing key(s): ").append(String.join(", ", missing));
    }
    if (!unexpected.isEmpty()) {
      sb.append("\n\tUnexpected key(s): ").append(String.join(", ", unexpected));
    }
    for (String d : details) {
      sb.append("\n\tSize mismatch for ").append(d);
    }
    if (details.isEmpty()) {
      sb.append("\n\tLoad with strict = false to skip keys that do not match");
    }
    return sb.toString();
  }

  /** Keys of the model missing from the state. */
  public List<String> missingKeys() {
    return missingKeys;
  }

  /** Keys of the state the model does not have. */
  public List<String> unexpectedKeys() {
    return unexpectedKeys;
  }

  /** Keys whose shapes differ. */
  public List<String> mismatchedKeys() {
    return mismatchedKeys;
  }
}
