package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.nn.ReLU;
import dev.ondevice.optim.Adam;

/**
 * The PyTorch super-resolution example: an ESPCN-style network (four convolutions and a pixel
 * shuffle) trained with MSE by {@code train(epoch)}, which moves every batch to the device, and
 * evaluated by {@code test()}, which reports the average PSNR.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/77f55b912142e11fcfdf5b530231fb9c52f181e8/super_resolution/main.py
 * (with model.py)
 *
 * <p>Ported: Net, train and test as written ({@code epoch_loss += loss.item()} and the per-iteration
 * print in train, {@code 10 * log10(1 / mse.item())} per batch in test, as the original does), the
 * epoch loop of main; left out argparse, the BSDS300 download and transforms (random 8x8 inputs and
 * 24x24 targets here), the orthogonal initialisation (not in the API: the layers' default
 * initialisation is kept) and the checkpoint. {@code nn.PixelShuffle} is written out with reshape
 * and permute.
 *
 * <p>Outcome: completes
 */
public final class ExamplesSuperResolutionTrainTest {
  private ExamplesSuperResolutionTrainTest() {}

  static final class Net extends Model {
    final int upscaleFactor;
    final ReLU relu = new ReLU();
    final Conv2d conv1 = new Conv2d(1, 64, 5, 1, 2, true);
    final Conv2d conv2 = new Conv2d(64, 64, 3, 1, 1, true);
    final Conv2d conv3 = new Conv2d(64, 32, 3, 1, 1, true);
    final Conv2d conv4;

    Net(int upscaleFactor) {
      this.upscaleFactor = upscaleFactor;
      this.conv4 = new Conv2d(32, upscaleFactor * upscaleFactor, 3, 1, 1, true);
    }

    Tensor pixelShuffle(Tensor x) {
      long n = x.size(0);
      long c = x.size(1) / (upscaleFactor * upscaleFactor);
      long h = x.size(2);
      long w = x.size(3);
      return x.reshape(n, c, upscaleFactor, upscaleFactor, h, w).permute(0, 1, 4, 2, 5, 3)
          .reshape(n, c, h * upscaleFactor, w * upscaleFactor);
    }

    Tensor forward(Tensor x) {
      x = relu.forward(conv1.forward(x));
      x = relu.forward(conv2.forward(x));
      x = relu.forward(conv3.forward(x));
      x = pixelShuffle(conv4.forward(x));
      return x;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    int upscaleFactor = 3;
    System.out.println("===> Loading datasets");
    TensorDataset trainSet = new TensorDataset(Tensor.rand(Shape.of(12, 1, 8, 8)), Tensor.rand(Shape.of(12, 1, 24, 24)));
    TensorDataset testSet = new TensorDataset(Tensor.rand(Shape.of(6, 1, 8, 8)), Tensor.rand(Shape.of(6, 1, 24, 24)));
    DataLoader trainingDataLoader = DataLoader.builder(trainSet).batchSize(4).shuffle(123).build();
    DataLoader testingDataLoader = DataLoader.builder(testSet).batchSize(3).build();

    System.out.println("===> Building model");
    Net model = new Net(upscaleFactor);
    model.toDevice(device);
    MseLoss criterion = new MseLoss();
    Adam optimizer = new Adam(model.parameters(), 0.01);

    for (int epoch = 1; epoch <= 2; epoch++) {
      // train(epoch)
      double epochLoss = 0;
      int iteration = 1;
      for (Batch batch : trainingDataLoader) {
        Tensor input = batch.inputs().to(device);
        Tensor target = batch.targets().to(device);

        optimizer.zeroGrad();
        Tensor loss = criterion.forward(model.forward(input), target);
        epochLoss += loss.item(); // costs time: HostSyncInLoop
        loss.backward();
        optimizer.step();

        System.out.printf("===> Epoch[%d](%d/%d): Loss: %.4f%n", epoch, iteration, trainingDataLoader.numBatches(),
            loss.item()); // costs time: HostSyncInLoop
        iteration++;
      }
      System.out.printf("===> Epoch %d Complete: Avg. Loss: %.4f%n", epoch, epochLoss / trainingDataLoader.numBatches());

      // test()
      double avgPsnr = 0;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (Batch batch : testingDataLoader) {
          Tensor input = batch.inputs().to(device);
          Tensor target = batch.targets().to(device);

          Tensor prediction = model.forward(input);
          Tensor mse = criterion.forward(prediction, target);
          double psnr = 10 * Math.log10(1 / mse.item()); // costs time: HostSyncInLoop
          avgPsnr += psnr;
        }
      }
      System.out.printf("===> Avg. PSNR: %.4f dB%n", avgPsnr / testingDataLoader.numBatches());
    }
  }
}
