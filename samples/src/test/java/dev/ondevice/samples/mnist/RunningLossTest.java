package dev.ondevice.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ondevice.Device;
import dev.ondevice.DeviceStats;
import dev.ondevice.Tensor;
import org.junit.jupiter.api.Test;

/**
 * The running loss shown by the progress bar: on an emulated GPU it never makes the host wait; on
 * the CPU it reads the loss where it is, and counts those reads.
 */
class RunningLossTest {
  @Test
  void onAGpuTheLossArrivesWithoutASync() throws Exception {
    Device gpu = Device.cuda(0);
    RunningLoss running = new RunningLoss();
    long syncs = DeviceStats.of(gpu).syncs();
    Tensor total = Tensor.scalar(0.0, gpu);
    double shown = Double.NaN;
    for (int batch = 1; batch <= 40 && Double.isNaN(shown); batch++) {
      total = total.add(1.5);
      shown = running.update(batch, total);
      Thread.sleep(20);
    }
    assertEquals(1.5, shown, 1e-6, "the mean of the batches the copy held");
    assertEquals(syncs, DeviceStats.of(gpu).syncs(), "no host sync on the GPU");
    assertEquals(0, running.readsOnTheDevice());
  }

  @Test
  void onTheCpuEachReadIsCounted() throws Exception {
    RunningLoss running = new RunningLoss();
    long reads = DeviceStats.of(Device.cpu()).syncs();
    Tensor total = Tensor.scalar(0.0);
    for (int batch = 1; batch <= 4; batch++) {
      total = total.add(2.0);
      running.update(batch, total);
      Thread.sleep(60);
    }
    assertEquals(3, running.readsOnTheDevice(), "at the 2nd, 3rd and 4th batch, 60 ms apart, of what the one before offered");
    assertEquals(3, DeviceStats.of(Device.cpu()).syncs() - reads, "each counted in the CPU's syncs()");
  }
}
