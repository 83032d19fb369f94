package dev.ondevice.samples.mnist;

/** What one epoch gave: its mean training loss, the test accuracy after it, and its training speed. */
final class EpochResult {
  final int epoch;
  final double loss;
  final double accuracy;
  final double samplesPerSecond;
  final long hostSyncs;

  EpochResult(int epoch, double loss, double accuracy, double samplesPerSecond, long hostSyncs) {
    this.epoch = epoch;
    this.loss = loss;
    this.accuracy = accuracy;
    this.samplesPerSecond = samplesPerSecond;
    this.hostSyncs = hostSyncs;
  }
}
