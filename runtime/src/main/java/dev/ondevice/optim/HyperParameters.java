package dev.ondevice.optim;

import java.util.Map;

/**
 * Checks of hyper-parameter values, and their text form in a state dict, shared by the optimizers.
 * Messages name the optimizer, the hyper-parameter and the value.
 */
final class HyperParameters {
  private HyperParameters() {}

  /** {@code value}, if it is a number {@code >= 0}. */
  static double nonNegative(String optimizer, String name, double value) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(
          optimizer + ": " + name + " must be a finite number >= 0, got " + value);
    }
    return value;
  }

  /** {@code value}, if it is in {@code [0, 1)}. */
  static double belowOne(String optimizer, String name, double value) {
    if (!(value >= 0 && value < 1)) {
      throw new IllegalArgumentException(
          optimizer + ": " + name + " must be in [0, 1), got " + value);
    }
    return value;
  }

  /** The number saved under {@code key}. */
  static double number(Map<String, String> values, String optimizer, String key) {
    String text = text(values, optimizer, key);
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "loadStateDict: " + optimizer + " '" + key + "' is not a number: " + text, e);
    }
  }

  /** The flag saved under {@code key}: {@code true} or {@code false}. */
  static boolean flag(Map<String, String> values, String optimizer, String key) {
    String text = text(values, optimizer, key);
    if (text.equals("true") || text.equals("false")) {
      return text.equals("true");
    }
    throw new IllegalArgumentException(
        "loadStateDict: " + optimizer + " '" + key + "' must be true or false, got " + text);
  }

  /** The pair of numbers saved under {@code key} by {@link #pair(double, double)}. */
  static double[] pair(Map<String, String> values, String optimizer, String key) {
    String text = text(values, optimizer, key);
    String[] parts = text.split(",", -1);
    try {
      if (parts.length == 2) {
        return new double[] {Double.parseDouble(parts[0]), Double.parseDouble(parts[1])};
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "loadStateDict: "
            + optimizer
            + " '"
            + key
            + "' must be two numbers separated by a comma, got "
            + text);
  }

  /**
   * Two numbers as text, {@code 0.9,0.999}, exactly as {@link Double#toString(double)} writes them.
   */
  static String pair(double first, double second) {
    return first + "," + second;
  }

  private static String text(Map<String, String> values, String optimizer, String key) {
    String text = values.get(key);
    if (text == null) {
      throw new IllegalArgumentException(
          "loadStateDict: the " + optimizer + " state has no '" + key + "'");
    }
    return text;
  }
}
