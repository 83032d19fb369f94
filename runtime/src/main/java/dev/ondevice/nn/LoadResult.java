package dev.ondevice.nn;

import java.util.List;

/**
 * What a non-strict {@link Model#loadStateDict} left out: keys the model has and the state lacks,
 * and the reverse.
 */
public final class LoadResult {
  private final List<String> missingKeys;
  private final List<String> unexpectedKeys;

  LoadResult(List<String> missingKeys, List<String> unexpectedKeys) {
    this.missingKeys = List.copyOf(missingKeys);
    this.unexpectedKeys = List.copyOf(unexpectedKeys);
  }

  /** Keys of the model that the loaded state did not have; they kept their values. */
  public List<String> missingKeys() {
    return missingKeys;
  }

  /** Keys of the loaded state that the model does not have; they were ignored. */
  public List<String> unexpectedKeys() {
    return unexpectedKeys;
  }

  @Override
  public String toString() {
    return "missing keys " + missingKeys + ", unexpected keys " + unexpectedKeys;
  }
}
