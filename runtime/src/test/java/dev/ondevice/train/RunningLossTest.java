package dev.ondevice.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ondevice.Device;
import dev.ondevice.DeviceStats;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/**
 * The loss summed on the device and read every few batches: on the CPU each read is counted and
 * happens at the batch it is due; on an emulated GPU the host never waits, and a read copy arrives.
 */
class RunningLossTest {
  private static final double[] LOSSES = {2.0, 1.0, 0.5, 0.5, 4.0};

  @Test
  void onTheCpuTheMeanIsReadEveryNBatchesAndEachReadCounts() {
    RunningLoss running = new RunningLoss(2);
    long syncs = DeviceStats.of(Device.cpu()).syncs();
    OptionalDouble[] seen = new OptionalDouble[LOSSES.length];
    for (int i = 0; i < LOSSES.length; i++) {
      running.add(Tensor.scalar(LOSSES[i]));
      seen[i] = running.latest();
    }
    assertEquals(OptionalDouble.empty(), seen[0]);
    assertEquals(OptionalDouble.of(1.5), seen[1], "(2 + 1) / 2, read at batch 2");
    assertEquals(OptionalDouble.of(1.5), seen[2]);
    assertEquals(OptionalDouble.of(1.0), seen[3], "(2 + 1 + 0.5 + 0.5) / 4, read at batch 4");
    assertEquals(OptionalDouble.of(1.0), seen[4]);
    assertEquals(2, running.reads());
    assertEquals(
        2,
        DeviceStats.of(Device.cpu()).syncs() - syncs,
        "the two reads, counted in the CPU's syncs()");
    assertEquals(5, running.batches());
    assertEquals(8.0, running.total().item());
    assertEquals(Shape.scalar(), running.total().shape());
  }

  @Test
  void onAGpuTheMeanArrivesWithoutASync() throws InterruptedException {
    Device gpu = Device.cuda(0);
    RunningLoss running = new RunningLoss(2);
    long syncs = DeviceStats.of(gpu).syncs();
    running.add(Tensor.scalar(2.0, gpu));
    running.add(Tensor.scalar(1.0, gpu));
    OptionalDouble latest = running.latest();
    for (int tries = 0; tries < 200 && latest.isEmpty(); tries++) {
      Thread.sleep(10);
      latest = running.latest();
    }
    assertEquals(OptionalDouble.of(1.5), latest, "the mean of the two batches the copy held");
    assertEquals(syncs, DeviceStats.of(gpu).syncs(), "no host sync on the GPU");
    assertEquals(0, running.reads());
    assertEquals(Device.cuda(0), running.total().device());
  }

  @Test
  void theLossIsDetachedAndAnEarlierTotalIsNotChanged() {
    RunningLoss running = new RunningLoss(10);
    Tensor w = Tensor.scalar(3.0).requiresGrad(true);
    running.add(w.mul(2.0));
    Tensor first = running.total();
    running.add(Tensor.scalar(1.0));
    assertEquals(false, running.total().requiresGrad());
    assertEquals(6.0, first.item());
    assertEquals(7.0, running.total().item());
  }

  @Test
  void badArgumentsAreRejectedWithTheValue() {
    assertEquals(
        "RunningLoss: readEvery must be at least 1, got 0",
        assertThrows(IllegalArgumentException.class, () -> new RunningLoss(0)).getMessage());
    RunningLoss running = new RunningLoss(1);
    assertEquals(
        "RunningLoss: a loss has one element, got shape [2, 2]",
        assertThrows(
                IllegalArgumentException.class,
                () -> running.add(Tensor.zeros(Shape.of(2, 2), Device.cpu())))
            .getMessage());
    assertEquals(
        "RunningLoss: no loss has been added",
        assertThrows(IllegalStateException.class, running::total).getMessage());
  }
}
