package dev.ondevice.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ondevice.Device;
import dev.ondevice.DeviceStats;
import dev.ondevice.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/**
 * A fake loop with known losses, batch sizes and clock: the metrics against hand-computed values,
 * the listeners' calls in order, and the host reads an epoch makes on an emulated GPU and on the
 * CPU.
 */
class TrainingProgressTest {
  /** Each epoch: losses 2, 1, 0.5, 0.5 (sum 4), batches of 4, 4, 4 and 2 samples (14). */
  private static final double[] LOSSES = {2.0, 1.0, 0.5, 0.5};

  private static final long[] SIZES = {4, 4, 4, 2};

  /** A clock that moves 0.5 s each time it is read: 2 reads per epoch, so 0.5 s per epoch. */
  private static final class FakeClock {
    private long nanos;

    long next() {
      nanos += 500_000_000L;
      return nanos;
    }
  }

  /** Writes down each call, as a line. */
  private static final class Recorder implements TrainingListener {
    private final String name;
    private final List<String> calls;

    Recorder(String name, List<String> calls) {
      this.name = name;
      this.calls = calls;
    }

    @Override
    public void onEpochStart(EpochStart e) {
      calls.add(name + " start " + e.epoch() + "/" + e.epochs() + " of " + e.plannedSamples());
    }

    @Override
    public void onBatchEnd(BatchStats b) {
      calls.add(
          name
              + " batch "
              + b.epoch()
              + "."
              + b.batches()
              + " "
              + b.samples()
              + " "
              + b.runningLoss());
    }

    @Override
    public void onEpochEnd(EpochMetrics m) {
      calls.add(name + " end " + m.epoch());
    }
  }

  private static TrainingProgress progress(
      Device device, int epochs, TrainingListener... listeners) {
    return new TrainingProgress(device, epochs, 2, List.of(listeners), new FakeClock()::next);
  }

  private static void trainEpoch(TrainingProgress progress, Device device) {
    progress.startEpoch(14);
    for (int i = 0; i < LOSSES.length; i++) {
      progress.batchEnd(Tensor.scalar(LOSSES[i], device).requiresGrad(true).mul(1.0), SIZES[i]);
    }
  }

  @Test
  void theMetricsAreTheHandComputedOnes() {
    TrainingProgress progress = progress(Device.cpu(), 2);
    trainEpoch(progress, Device.cpu());
    EpochMetrics first = progress.endEpoch(Tensor.scalar(9L), 12);
    trainEpoch(progress, Device.cpu());
    EpochMetrics second = progress.endEpoch();

    assertEquals(
        new EpochMetrics(1, 4, 14, 1.0, OptionalDouble.of(0.75), 0.5, 3, 2),
        first,
        "mean 4 / 4 batches, 9 of 12 correct, 0.5 s; 2 running reads (batches 2 and 4) and the epoch's read");
    assertEquals(28.0, first.samplesPerSecond(), "14 samples in 0.5 s");
    assertEquals(new EpochMetrics(2, 4, 14, 1.0, OptionalDouble.empty(), 0.5, 3, 2), second);
    assertEquals(List.of(first, second), progress.history());
  }

  @Test
  void onAGpuAnEpochMakesOneHostSync() {
    Device gpu = Device.cuda(0);
    TrainingProgress progress = new TrainingProgress(gpu, 1, 1);
    long syncs = DeviceStats.of(gpu).syncs();
    trainEpoch(progress, gpu);
    assertEquals(syncs, DeviceStats.of(gpu).syncs(), "no sync while the batches are trained");
    EpochMetrics m = progress.endEpoch(Tensor.scalar(12L, gpu), 12);
    assertEquals(syncs + 1, DeviceStats.of(gpu).syncs(), "the loss and the accuracy read together");
    assertEquals(1, m.hostSyncs());
    assertEquals(0, m.runningLossReads());
    assertEquals(1.0, m.meanLoss());
    assertEquals(OptionalDouble.of(1.0), m.accuracy());
  }

  @Test
  void listenersAreCalledInOrderWithWhatTheLoopReported() {
    List<String> calls = new ArrayList<>();
    TrainingProgress progress =
        progress(
            Device.cpu(),
            1,
            new Recorder("a", calls),
            new TrainingListener() {},
            new Recorder("b", calls));
    trainEpoch(progress, Device.cpu());
    progress.endEpoch();
    assertEquals(
        List.of(
            "a start 1/1 of 14",
            "b start 1/1 of 14",
            "a batch 1.1 4 OptionalDouble.empty",
            "b batch 1.1 4 OptionalDouble.empty",
            "a batch 1.2 8 OptionalDouble[1.5]",
            "b batch 1.2 8 OptionalDouble[1.5]",
            "a batch 1.3 12 OptionalDouble[1.5]",
            "b batch 1.3 12 OptionalDouble[1.5]",
            "a batch 1.4 14 OptionalDouble[1.0]",
            "b batch 1.4 14 OptionalDouble[1.0]",
            "a end 1",
            "b end 1"),
        calls);
  }
}
