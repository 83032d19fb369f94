package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.BatchNorm2d;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;

/**
 * ClimateNet's {@code CGNet.train}: segmentation of climate fields into background, tropical
 * cyclones and atmospheric rivers, trained with the Jaccard (IoU) loss of
 * {@code climatenet/utils/losses.py}, with the confusion matrix of each batch added up by
 * {@code get_cm} and the loss shown in the progress bar.
 *
 * <p>Source: https://github.com/andregraubner/ClimateNet/pull/22 (commit 9ef958c, open)
 *
 * <p>Bug: {@code jaccard_loss(logits, true)} one-hot encodes the labels with
 * {@code torch.eye(num_classes)[true.squeeze(1)]}: the identity is made on the CPU and indexed by the
 * labels, which {@code CGNet.train} has pushed to the GPU ("indices should be either on cpu or on
 * the same device as the indexed tensor"). The fix moves the identity to {@code true.device} first.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class ClimateNetJaccardEyeOnCpu {
  private ClimateNetJaccardEyeOnCpu() {}

  /** {@code climatenet/utils/losses.py}. */
  static final class Losses {
    static Tensor jaccardLoss(Tensor logits, Tensor trueLabels, double eps) {
      long numClasses = logits.size(1);
      Tensor index = trueLabels.flatten();
      Tensor true1Hot = Tensor.eye(numClasses).indexSelect(0, index) // bug: across-methods
          .view(trueLabels.size(0), trueLabels.size(1), trueLabels.size(2), numClasses);
      true1Hot = true1Hot.permute(0, 3, 1, 2).to(DType.FLOAT32);
      Tensor probas = logits.softmax(1);
      true1Hot = true1Hot.to(logits.dtype());
      int[] dims = {0, 2, 3};
      Tensor intersection = probas.mul(true1Hot).sum(dims, false);
      Tensor cardinality = probas.add(true1Hot).sum(dims, false);
      Tensor union = cardinality.sub(intersection);
      Tensor jaccLoss = intersection.div(union.add(eps)).mean();
      return jaccLoss.rsub(1);
    }
  }

  /** {@code climatenet/utils/metrics.py}. */
  static final class Metrics {
    static double[][] getCm(Tensor pred, Tensor gt, int nClasses) {
      double[][] cm = new double[nClasses][nClasses];
      for (int i = 0; i < pred.size(0); i++) {
        Tensor predTmp = pred.select(0, i);
        Tensor gtTmp = gt.select(0, i);
        for (int actual = 0; actual < nClasses; actual++) {
          for (int predicted = 0; predicted < nClasses; predicted++) {
            Tensor isActual = gtTmp.eq(actual);
            Tensor isPred = predTmp.eq(predicted);
            cm[actual][predicted] += isActual.logicalAnd(isPred).to(DType.INT64).sum().itemAsLong(); // costs time: HostSyncInLoop
          }
        }
      }
      return cm;
    }
  }

  /** A small stand-in for {@code CGNetModule}: classes logits per pixel. */
  static final class CgNetModule extends Model {
    final Sequential body;

    CgNetModule(int classes, int channels) {
      body = new Sequential(new Conv2d(channels, 8, 3, 1, 1, true), new BatchNorm2d(8), new ReLU(),
          new Conv2d(8, 8, 3, 1, 1, true), new ReLU(), new Conv2d(8, classes, 1, 1, 0, true));
    }

    Tensor forward(Tensor x) {
      return body.forward(x);
    }
  }

  /** {@code CGNet}: the high-level class holding the network and its optimizer. */
  static final class CgNet {
    final CgNetModule network;
    final Adam optimizer;
    final Device device;
    final int epochs = 2;

    CgNet(int classes, int channels, Device device) {
      this.device = device;
      network = new CgNetModule(classes, channels);
      network.toDevice(device);
      optimizer = new Adam(network.parameters(), 1e-3);
    }

    void train(TensorDataset dataset) {
      network.train();
      DataLoader loader = DataLoader.builder(dataset).batchSize(4).shuffle(1).build();
      for (int epoch = 1; epoch <= epochs; epoch++) {
        System.out.println("Epoch " + epoch + ":");
        double[][] aggregateCm = new double[3][3];
        for (Batch b : loader) {
          // Push data on GPU and pass forward
          Tensor features = b.inputs().to(device);
          Tensor labels = b.targets().to(device);

          Tensor outputs = network.forward(features).softmax(1);

          // Update training CM
          Tensor predictions = outputs.max(1).indices();
          double[][] cm = Metrics.getCm(predictions, labels, 3);
          for (int a = 0; a < 3; a++) {
            for (int p = 0; p < 3; p++) {
              aggregateCm[a][p] += cm[a][p];
            }
          }

          // Pass backward
          Tensor loss = Losses.jaccardLoss(outputs, labels, 1e-7); // same bug
          System.out.printf("Loss: %.5f%n", loss.item()); // costs time: HostSyncInLoop
          loss.backward();
          optimizer.step();
          optimizer.zeroGrad();
        }
        System.out.println("Epoch stats: " + java.util.Arrays.deepToString(aggregateCm));
      }
    }
  }

  public static void run(Device device) {
    // 16 samples of 4 fields on an 8x8 grid, labels 0 (background), 1 (TC), 2 (AR)
    Tensor fields = Tensor.randn(Shape.of(16, 4, 8, 8));
    Tensor labels = Tensor.randint(0, 3, Shape.of(16, 8, 8));
    CgNet cgnet = new CgNet(3, 4, device);
    cgnet.train(new TensorDataset(fields, labels));
  }
}
