package dev.ondevice.train;

/**
 * What a training loop reports, as Keras callbacks, PyTorch Lightning's {@code Callback} and DJL's
 * {@code TrainingListener} receive it: a progress bar, a logger or a plot implements the methods it
 * needs and is given to a {@link TrainingProgress}, which calls them on the loop's thread, in this
 * order, for each epoch:
 *
 * <pre>
 * onEpochStart(EpochStart)    once, from TrainingProgress.startEpoch
 * onBatchEnd(BatchStats)      once per batch, from TrainingProgress.batchEnd
 * onEpochEnd(EpochMetrics)    once, from TrainingProgress.endEpoch
 * </pre>
 *
 * <p>Listeners are called in the order they were given; an exception a listener throws reaches the
 * training loop. A listener is handed values read on the host already: nothing it receives makes
 * the host wait for the device.
 *
 * <pre>{@code
 * TrainingListener logger = new TrainingListener() {
 *   @Override
 *   public void onEpochEnd(EpochMetrics m) {
 *     System.out.printf("epoch %d: loss %.4f, %.0f samples/s%n", m.epoch(), m.meanLoss(), m.samplesPerSecond());
 *   }
 * };
 * }</pre>
 */
public interface TrainingListener {
  /** An epoch begins. Does nothing unless overridden. */
  default void onEpochStart(EpochStart epoch) {}

  /** A batch has been trained. Does nothing unless overridden. */
  default void onBatchEnd(BatchStats batch) {}

  /** An epoch has ended, with its metrics. Does nothing unless overridden. */
  default void onEpochEnd(EpochMetrics metrics) {}
}
