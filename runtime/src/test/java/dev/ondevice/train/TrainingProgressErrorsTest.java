package dev.ondevice.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Bad arguments and calls out of order, each rejected with a message that names the value or the
 * call.
 */
class TrainingProgressErrorsTest {
  private static String message(Class<? extends Throwable> type, Executable call) {
    return assertThrows(type, call).getMessage();
  }

  @Test
  void badSettingsAreRejected() {
    assertEquals(
        "TrainingProgress: epochs must be at least 1, got 0",
        message(IllegalArgumentException.class, () -> new TrainingProgress(Device.cpu(), 0, 1)));
    assertEquals(
        "TrainingProgress: readEvery must be at least 1, got -1",
        message(IllegalArgumentException.class, () -> new TrainingProgress(Device.cpu(), 1, -1)));
    assertEquals(
        "TrainingProgress: listener 1 is null",
        message(
            NullPointerException.class,
            () -> new TrainingProgress(Device.cpu(), 1, 1, new TrainingListener() {}, null)));
  }

  @Test
  void badBatchesAreRejected() {
    TrainingProgress progress = new TrainingProgress(Device.cpu(), 1, 1);
    assertEquals(
        "EpochStart: plannedSamples must be at least 1, got 0",
        message(IllegalArgumentException.class, () -> progress.startEpoch(0)));
    progress.startEpoch(10);
    assertEquals(
        "TrainingProgress: batchSize must be at least 1, got 0",
        message(IllegalArgumentException.class, () -> progress.batchEnd(Tensor.scalar(1.0), 0)));
    assertEquals(
        "TrainingProgress: the loss is on cuda:0, but the progress counts the host synchronisations of cpu",
        message(
            IllegalArgumentException.class,
            () -> progress.batchEnd(Tensor.scalar(1.0, Device.cuda(0)), 5)));
    assertEquals(
        "RunningLoss: a loss has one element, got shape [3]",
        message(
            IllegalArgumentException.class, () -> progress.batchEnd(Tensor.zeros(Shape.of(3)), 5)));
    progress.batchEnd(Tensor.scalar(1.0), 10);
    assertEquals(
        "TrainingProgress: evaluated must be at least 1, got 0",
        message(IllegalArgumentException.class, () -> progress.endEpoch(Tensor.scalar(0L), 0)));
    assertEquals(
        "TrainingProgress: correct is a count of one element, got shape [2]",
        message(
            IllegalArgumentException.class, () -> progress.endEpoch(Tensor.zeros(Shape.of(2)), 4)));
    assertEquals(
        "TrainingProgress: 5 correct of 4 evaluated",
        message(IllegalArgumentException.class, () -> progress.endEpoch(Tensor.scalar(5L), 4)));
  }

  @Test
  void callsOutOfOrderAreRejected() {
    TrainingProgress progress = new TrainingProgress(Device.cpu(), 1, 1);
    assertEquals(
        "TrainingProgress: batchEnd outside an epoch; call startEpoch() first",
        message(IllegalStateException.class, () -> progress.batchEnd(Tensor.scalar(1.0), 1)));
    assertEquals(
        "TrainingProgress: endEpoch outside an epoch; call startEpoch() first",
        message(IllegalStateException.class, progress::endEpoch));
    progress.startEpoch(1);
    assertEquals(
        "TrainingProgress: epoch 1 has not ended; call endEpoch() first",
        message(IllegalStateException.class, () -> progress.startEpoch(1)));
    assertEquals(
        "TrainingProgress: epoch 1 had no batch",
        message(IllegalStateException.class, progress::endEpoch));
    progress.batchEnd(Tensor.scalar(1.0), 1);
    progress.endEpoch();
    assertEquals(
        "TrainingProgress: all 1 epochs have ended",
        message(IllegalStateException.class, () -> progress.startEpoch(1)));
  }

  @Test
  void metricsOutOfRangeAreRejected() {
    assertEquals(
        "EpochMetrics: batches must be at least 1, got 0",
        message(
            IllegalArgumentException.class,
            () -> new EpochMetrics(1, 0, 1, 1.0, OptionalDouble.empty(), 1.0, 0, 0)));
    assertEquals(
        "EpochMetrics: seconds must be positive, got 0.0",
        message(
            IllegalArgumentException.class,
            () -> new EpochMetrics(1, 1, 1, 1.0, OptionalDouble.empty(), 0.0, 0, 0)));
    assertEquals(
        "EpochMetrics: accuracy must be in [0, 1], got 1.5",
        message(
            IllegalArgumentException.class,
            () -> new EpochMetrics(1, 1, 1, 1.0, OptionalDouble.of(1.5), 1.0, 0, 0)));
    assertEquals(
        "EpochStart: epoch must be in [1, 3], got 4",
        message(IllegalArgumentException.class, () -> new EpochStart(4, 3, 10)));
  }
}
