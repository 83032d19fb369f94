package dev.ondevice.samples;

import dev.ondevice.Autograd;
import dev.ondevice.Cuda;
import dev.ondevice.Device;
import dev.ondevice.DeviceStats;
import dev.ondevice.Generator;
import dev.ondevice.Tensor;

/**
 * A device-agnostic tour of the runtime: fits a linear model to noisy data with autograd, written
 * the way the device rules say (created on the device, moved once, the loss read once per epoch),
 * and prints the loss, the fitted weights and the device counters.
 *
 * <p>Run with {@code --device cuda:0} and {@code -Dondevice.emulatedCudaDevices=1} to see it on an
 * emulated GPU.
 */
public final class RuntimeDemo {
  private RuntimeDemo() {}

  /** Runs the demo; {@code --device <spec>} overrides the default device. */
  public static void main(String[] args) {
    Device device =
        args.length == 2 && args[0].equals("--device")
            ? Device.parse(args[1])
            : Device.cudaIfAvailable();
    System.out.println(
        "Device: "
            + device.describe()
            + Cuda.unavailableReason().map(r -> " (CUDA not available: " + r + ")").orElse(""));
    Generator.manualSeed(0);

    Tensor trueWeights = Tensor.of(new float[] {2.0f, -3.0f, 0.5f}).to(device).reshape(3, 1);
    Tensor x = Tensor.randn(4096, 3, device);
    Tensor y = x.matmul(trueWeights).add(Tensor.randn(4096, 1, device).mul(0.1));

    Tensor w = Tensor.zeros(3, 1, device).requiresGrad(true);
    Tensor b = Tensor.zeros(1, device).requiresGrad(true);
    double lr = 0.1;
    int batch = 256;
    int batches = 4096 / batch;
    DeviceStats.reset();
    for (int epoch = 1; epoch <= 5; epoch++) {
      Tensor total = Tensor.zeros(1, device);
      for (int start = 0; start < 4096; start += batch) {
        Tensor xb = x.narrow(0, start, batch);
        Tensor yb = y.narrow(0, start, batch);
        Tensor loss = xb.matmul(w).add(b).sub(yb).square().mean();
        loss.backward();
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          w.subi(w.grad().mul(lr));
          b.subi(b.grad().mul(lr));
        }
        w.setGrad(null);
        b.setGrad(null);
        total = total.add(loss.detach());
      }
      System.out.printf("epoch %d  mean loss %.5f%n", epoch, total.item() / batches);
    }
    System.out.println("fitted weights " + w.detach().reshape(-1) + " (true: 2, -3, 0.5)");
    System.out.println(DeviceStats.of(device));
  }
}
