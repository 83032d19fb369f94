package dev.ondevice.nn;

import java.util.List;

/**
 * Thrown when a state dict does not fit a model: missing keys and unexpected keys (when loading
 * strictly; a non-strict load skips them, and they are not listed) and keys whose shapes differ.
 * Nothing is copied when it is thrown. The message lists the first 20 keys of each kind (a
 * checkpoint of 200,000 unrelated tensors must not make a message of millions of characters); the
 * getters return every key.
 */
public final class StateDictException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** How many keys of each kind the message lists; the getters return them all. */
  static final int LISTED = 20;

  private final List<String> missingKeys;
  private final List<String> unexpectedKeys;
  private final List<String> mismatchedKeys;

  StateDictException(
      String modelName,
      List<String> missing,
      List<String> unexpected,
      List<String> mismatched,
      List<String> mismatchDetails) {
    super(message(modelName, missing, unexpected, mismatchDetails));
    this.missingKeys = List.copyOf(missing);
    this.unexpectedKeys = List.copyOf(unexpected);
    this.mismatchedKeys = List.copyOf(mismatched);
  }

  private static String message(
      String modelName, List<String> missing, List<String> unexpected, List<String> details) {
    StringBuilder sb =
        new StringBuilder("Error(s) in loading the state dict of " + modelName + ":");
    if (!missing.isEmpty()) {
      sb.append("\n\tMissing key(s): ").append(listed(missing));
    }
    if (!unexpected.isEmpty()) {
      sb.append("\n\tUnexpected key(s): ").append(listed(unexpected));
    }
    for (String d : details.subList(0, Math.min(LISTED, details.size()))) {
      sb.append("\n\tSize mismatch for ").append(d);
    }
    if (details.size() > LISTED) {
      sb.append("\n\t... and ").append(details.size() - LISTED).append(" more size mismatches");
    }
    if (details.isEmpty()) {
      sb.append("\n\tLoad with strict = false to skip keys that do not match");
    }
    return sb.toString();
  }

  /**
   * The first {@value #LISTED} of {@code keys}, then how many more there are (all are in the
   * getters).
   */
  private static String listed(List<String> keys) {
    String shown = String.join(", ", keys.subList(0, Math.min(LISTED, keys.size())));
    return keys.size() > LISTED ? shown + ", ... (" + keys.size() + " in all)" : shown;
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
