package dev.ondevice.train;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.LongSupplier;

/**
 * A training run's progress, told to {@link TrainingListener}s: the loop calls {@link #startEpoch},
 * {@link #batchEnd} after each batch and {@link #endEpoch}, and gets each epoch's {@link
 * EpochMetrics}. The losses are summed on the device by a {@link RunningLoss}; the epoch's mean is
 * read once, at {@code endEpoch}, together with the accuracy when one is given, so the whole epoch
 * costs one host synchronisation, as the device rules ask.
 *
 * <pre>{@code
 * TrainingProgress progress = new TrainingProgress(device, epochs, 10, progressBar, logger);
 * for (int epoch = 0; epoch < epochs; epoch++) {
 *   progress.startEpoch(trainSet.size());
 *   for (Batch b : loader) {
 *     ...
 *     loss.backward();
 *     sgd.step();
 *     progress.batchEnd(loss, xb.size(0));             // no host synchronisation
 *   }
 *   EpochMetrics m = progress.endEpoch();              // the epoch's one host read
 * }
 * }</pre>
 */
public final class TrainingProgress {
  private final Device device;
  private final int epochs;
  private final int readEvery;
  private final List<TrainingListener> listeners;
  private final LongSupplier nanoTime;
  private final List<EpochMetrics> history = new ArrayList<>();
  private OpenEpoch open;

  /**
   * Progress of {@code epochs} epochs training on {@code device}, whose host synchronisations it
   * counts, reading the running loss every {@code readEvery} batches, told to {@code listeners} in
   * this order.
   *
   * @throws IllegalArgumentException if {@code epochs} or {@code readEvery} is below 1
   * @throws NullPointerException if a listener is null
   */
  public TrainingProgress(Device device, int epochs, int readEvery, TrainingListener... listeners) {
    this(device, epochs, readEvery, Arrays.asList(listeners), System::nanoTime);
  }

  TrainingProgress(
      Device device,
      int epochs,
      int readEvery,
      List<TrainingListener> listeners,
      LongSupplier nanoTime) {
    requireAtLeastOne("epochs", epochs);
    requireAtLeastOne("readEvery", readEvery);
    for (int i = 0; i < listeners.size(); i++) {
      Objects.requireNonNull(listeners.get(i), "TrainingProgress: listener " + i + " is null");
    }
    this.device = device.resolved();
    this.epochs = epochs;
    this.readEvery = readEvery;
    this.listeners = List.copyOf(listeners);
    this.nanoTime = nanoTime;
  }

  /**
   * Begins the next epoch, which plans to train {@code plannedSamples} samples, and tells the
   * listeners.
   *
   * @throws IllegalArgumentException if {@code plannedSamples} is below 1
   * @throws IllegalStateException if an epoch is under way, or every epoch has ended
   */
  public void startEpoch(long plannedSamples) {
    if (open != null) {
      throw new IllegalStateException(
          "TrainingProgress: epoch " + open.epoch + " has not ended; call endEpoch() first");
    }
    if (history.size() == epochs) {
      throw new IllegalStateException("TrainingProgress: all " + epochs + " epochs have ended");
    }
    EpochStart start = new EpochStart(history.size() + 1, epochs, plannedSamples);
    open = new OpenEpoch(start.epoch(), readEvery, device, nanoTime);
    listeners.forEach(l -> l.onEpochStart(start));
  }

  /**
   * Records a trained batch of {@code batchSize} samples and its {@code loss}, a one-element tensor
   * on the device, and tells the listeners. Never waits for the device.
   *
   * @throws IllegalArgumentException if {@code batchSize} is below 1, or the loss is not one
   *     element on the device
   * @throws IllegalStateException if no epoch is under way
   */
  public void batchEnd(Tensor loss, long batchSize) {
    requireEpoch("batchEnd");
    requireAtLeastOne("batchSize", batchSize);
    if (!loss.device().resolved().equals(device)) {
      throw new IllegalArgumentException(
          "TrainingProgress: the loss is on "
              + loss.device().resolved()
              + ", but the progress counts the host synchronisations of "
              + device);
    }
    BatchStats stats = open.add(loss, batchSize);
    listeners.forEach(l -> l.onBatchEnd(stats));
  }

  /**
   * Ends the epoch: reads its mean loss (the epoch's one host read) and tells the listeners.
   *
   * @throws IllegalStateException if no epoch is under way, or it had no batch
   */
  public EpochMetrics endEpoch() {
    requireBatches("endEpoch");
    return finish(open.loss.total().to(DType.FLOAT64).item(), OptionalDouble.empty());
  }

  /**
   * Ends the epoch with its accuracy: {@code correct}, a one-element count on the device, of {@code
   * evaluated} predictions. Reads the mean loss and the count together, in the epoch's one host
   * read, and tells the listeners.
   *
   * @throws IllegalArgumentException if {@code evaluated} is below 1, {@code correct} is not one
   *     element, or it counts more than {@code evaluated}
   * @throws IllegalStateException if no epoch is under way, or it had no batch
   */
  public EpochMetrics endEpoch(Tensor correct, long evaluated) {
    requireBatches("endEpoch");
    requireAtLeastOne("evaluated", evaluated);
    if (correct.numel() != 1) {
      throw new IllegalArgumentException(
          "TrainingProgress: correct is a count of one element, got shape " + correct.shape());
    }
    double[] read =
        Tensor.stack(
                List.of(open.loss.total().to(DType.FLOAT64), correct.reshape().to(DType.FLOAT64)),
                0)
            .toDoubleArray();
    if (read[1] > evaluated) {
      throw new IllegalArgumentException(
          "TrainingProgress: " + (long) read[1] + " correct of " + evaluated + " evaluated");
    }
    return finish(read[0], OptionalDouble.of(read[1] / evaluated));
  }

  /** The metrics of the epochs ended so far, in order. */
  public List<EpochMetrics> history() {
    return List.copyOf(history);
  }

  private EpochMetrics finish(double lossTotal, OptionalDouble accuracy) {
    EpochMetrics metrics = open.end(lossTotal, accuracy);
    history.add(metrics);
    open = null;
    listeners.forEach(l -> l.onEpochEnd(metrics));
    return metrics;
  }

  private void requireEpoch(String call) {
    if (open == null) {
      throw new IllegalStateException(
          "TrainingProgress: " + call + " outside an epoch; call startEpoch() first");
    }
  }

  private void requireBatches(String call) {
    requireEpoch(call);
    if (open.loss.batches() == 0) {
      throw new IllegalStateException("TrainingProgress: epoch " + open.epoch + " had no batch");
    }
  }

  private static void requireAtLeastOne(String name, long value) {
    if (value < 1) {
      throw new IllegalArgumentException(
          "TrainingProgress: " + name + " must be at least 1, got " + value);
    }
  }
}
