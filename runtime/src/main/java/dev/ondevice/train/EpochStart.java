package dev.ondevice.train;

/**
 * An epoch that begins: its number, counted from 1, of {@code epochs}, and the samples it plans to
 * train (what a progress bar takes as 100%).
 *
 * @param epoch the epoch, from 1 to {@code epochs}
 * @param epochs the epochs of the run
 * @param plannedSamples the samples the epoch plans to train, at least 1
 */
public record EpochStart(int epoch, int epochs, long plannedSamples) {
  /** Checks the values: {@code 1 <= epoch <= epochs} and {@code plannedSamples >= 1}. */
  public EpochStart {
    if (epochs < 1 || epoch < 1 || epoch > epochs) {
      throw new IllegalArgumentException(
          "EpochStart: epoch must be in [1, " + epochs + "], got " + epoch);
    }
    if (plannedSamples < 1) {
      throw new IllegalArgumentException(
          "EpochStart: plannedSamples must be at least 1, got " + plannedSamples);
    }
  }
}
