package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.GELU;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.AdamW;

/**
 * noether's field normalizers: a normalizer object holds a {@code shift} and a {@code scale}
 * vector computed from the dataset statistics; the data pipeline normalizes the targets with it, the
 * model is trained on the normalized fields, and at evaluation the model's predictions are
 * denormalized with the same normalizer to compare them with the raw fields.
 *
 * <p>Source: https://github.com/Emmi-AI/noether/pull/156
 *
 * <p>Bug: the normalizer's {@code shift} and {@code scale} tensors live on the CPU (they are built
 * from the statistics in the data pipeline), so denormalizing a prediction that is on CUDA fails;
 * the fix moves them to the input's device ({@code .to(x.device)}) in normalize and denormalize.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class NoetherNormalizerDenormalizeOnCpu {
  private NoetherNormalizerDenormalizeOnCpu() {}

  /** The mean/std normalizer of one field. */
  static final class MeanStdNormalizer {
    final Tensor shift;
    final Tensor scale;

    MeanStdNormalizer(double[] mean, double[] std) {
      this.shift = Tensor.of(mean);
      this.scale = Tensor.of(std);
    }

    Tensor normalize(Tensor x) {
      return x.sub(shift).div(scale); // same bug
    }

    Tensor denormalize(Tensor x) {
      return x.mul(scale).add(shift); // bug: held-outside-models
    }
  }

  /** A small point-wise field model. */
  static final class FieldModel extends Model {
    final Linear inProj = new Linear(3, 32);
    final GELU act = new GELU();
    final Linear outProj = new Linear(32, 2);

    Tensor forward(Tensor coords) {
      return outProj.forward(act.forward(inProj.forward(coords)));
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    MeanStdNormalizer normalizer = new MeanStdNormalizer(new double[] {1.0, -0.5}, new double[] {2.0, 0.5});
    Tensor coords = Tensor.rand(Shape.of(64, 3));
    Tensor fields = Tensor.randn(Shape.of(64, 2)).mul(2.0).add(1.0);
    // the data pipeline normalizes the targets on the CPU
    TensorDataset dataset = new TensorDataset(coords, normalizer.normalize(fields));
    DataLoader loader = DataLoader.builder(dataset).batchSize(16).shuffle(0).build();

    FieldModel model = new FieldModel();
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 1e-3);
    MseLoss loss = new MseLoss();
    for (int epoch = 0; epoch < 2; epoch++) {
      for (Batch batch : loader) {
        Tensor x = batch.inputs().to(device);
        Tensor y = batch.targets().to(device);
        Tensor l = loss.forward(model.forward(x), y);
        optimizer.zeroGrad();
        l.backward();
        optimizer.step();
      }
    }

    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor prediction = normalizer.denormalize(model.forward(coords.to(device)));
      Tensor error = prediction.sub(fields.to(device)).abs().mean();
      System.out.println("mean abs error " + error.item());
    }
  }
}
