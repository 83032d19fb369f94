package corpus.correct;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * The fast neural style example of pytorch/examples: {@code train} computes the Gram matrices of
 * the style image's VGG features once, keeps them in a list, and for each batch of content images
 * normalizes the stylized and original images with {@code utils.normalize_batch} (whose ImageNet
 * mean and std are made with {@code batch.new_tensor}, on the batch's device), and sums a content loss
 * and the style losses against the stored Gram matrices.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/0fb0ddd36d738a974e7ceb1ff810cea3fcf51e36/fast_neural_style/neural_style/neural_style.py
 * (and https://github.com/pytorch/examples/blob/2b456e809fe249f2153616578c116e4b2954ca18/fast_neural_style/neural_style/utils.py)
 *
 * <p>Ported: utils.gram_matrix and utils.normalize_batch as written, train's style-feature setup and
 * training loop as written ({@code batch.div_(255.0)} as an out-of-place division, {@code
 * style.repeat} as {@code expand}). VGG16's four relu outputs are reduced to two from a small conv stack
 * (a list in place of the namedtuple), the TransformerNet to two convolutions; the style image and
 * the COCO loader are random tensors. Left out: argparse, checkpoints, stylize, ONNX export.
 *
 * <p>Outcome: completes
 */
public final class ExamplesFastNeuralStyleTrain {
  private ExamplesFastNeuralStyleTrain() {}

  /** neural_style/utils.py */
  static final class Utils {
    static Tensor gramMatrix(Tensor y) {
      long b = y.size(0);
      long ch = y.size(1);
      long h = y.size(2);
      long w = y.size(3);
      Tensor features = y.view(b, ch, w * h);
      Tensor featuresT = features.transpose(1, 2);
      return features.matmul(featuresT).div(ch * h * w);
    }

    static Tensor normalizeBatch(Tensor batch) {
      // normalize using imagenet mean and std
      Tensor mean = Tensor.of(new float[] {0.485f, 0.456f, 0.406f}, Shape.of(3), batch.device()).view(-1, 1, 1);
      Tensor std = Tensor.of(new float[] {0.229f, 0.224f, 0.225f}, Shape.of(3), batch.device()).view(-1, 1, 1);
      batch = batch.div(255.0);
      return batch.sub(mean).div(std);
    }
  }

  /** neural_style/vgg.py Vgg16, reduced: returns [relu1_2, relu2_2]. */
  static final class Vgg16 extends Model {
    final Sequential slice1 = new Sequential(new Conv2d(3, 8, 3, 1, 1, true), new ReLU());
    final Sequential slice2 = new Sequential(new MaxPool2d(2), new Conv2d(8, 16, 3, 1, 1, true), new ReLU());

    Vgg16(boolean requiresGrad) {
      if (!requiresGrad) {
        for (Parameter param : parameters()) {
          param.requiresGrad(false);
        }
      }
    }

    List<Tensor> forward(Tensor x) {
      Tensor h = slice1.forward(x);
      Tensor hRelu12 = h;
      h = slice2.forward(h);
      Tensor hRelu22 = h;
      return List.of(hRelu12, hRelu22);
    }
  }

  /** neural_style/transformer_net.py TransformerNet, reduced. */
  static final class TransformerNet extends Model {
    final Conv2d conv1 = new Conv2d(3, 8, 3, 1, 1, true);
    final Conv2d conv2 = new Conv2d(8, 3, 3, 1, 1, true);

    Tensor forward(Tensor x) {
      return conv2.forward(conv1.forward(x).relu()).sigmoid().mul(255);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    int batchSize = 4;
    double contentWeight = 1e5;
    double styleWeight = 1e10;
    int logInterval = 2;
    DataLoader trainLoader = DataLoader.builder(
        new TensorDataset(Tensor.rand(Shape.of(12, 3, 16, 16)).mul(255), Tensor.zeros(12)))
        .batchSize(batchSize).build();

    TransformerNet transformer = new TransformerNet();
    transformer.toDevice(device);
    Adam optimizer = new Adam(transformer.parameters(), 1e-3);
    MseLoss mseLoss = new MseLoss();

    Vgg16 vgg = new Vgg16(false);
    vgg.toDevice(device);
    Tensor style = Tensor.rand(Shape.of(1, 3, 16, 16)).mul(255);   // utils.load_image + style_transform
    style = style.expand(batchSize, 3, 16, 16).to(device); // costs time: CreateThenMove

    List<Tensor> featuresStyle = vgg.forward(Utils.normalizeBatch(style));
    List<Tensor> gramStyle = new ArrayList<>();
    for (Tensor y : featuresStyle) {
      gramStyle.add(Utils.gramMatrix(y));
    }

    for (int e = 0; e < 2; e++) {
      transformer.train();
      double aggContentLoss = 0.;
      double aggStyleLoss = 0.;
      int count = 0;
      int batchId = 0;
      for (Batch batch : trainLoader) {
        Tensor x = batch.inputs();
        int nBatch = (int) x.size(0);
        count += nBatch;
        optimizer.zeroGrad();

        x = x.to(device);
        Tensor y = transformer.forward(x);

        y = Utils.normalizeBatch(y);
        x = Utils.normalizeBatch(x);

        List<Tensor> featuresY = vgg.forward(y);
        List<Tensor> featuresX = vgg.forward(x);

        Tensor contentLoss = mseLoss.forward(featuresY.get(1), featuresX.get(1)).mul(contentWeight);

        Tensor styleLoss = null;
        for (int i = 0; i < featuresY.size(); i++) {
          Tensor gmY = Utils.gramMatrix(featuresY.get(i));
          Tensor gmS = gramStyle.get(i);
          Tensor term = mseLoss.forward(gmY, gmS.slice(0, 0, nBatch));
          styleLoss = styleLoss == null ? term : styleLoss.add(term);
        }
        styleLoss = styleLoss.mul(styleWeight);

        Tensor totalLoss = contentLoss.add(styleLoss);
        totalLoss.backward();
        optimizer.step();

        aggContentLoss += contentLoss.item(); // costs time: HostSyncInLoop
        aggStyleLoss += styleLoss.item(); // costs time: HostSyncInLoop

        if ((batchId + 1) % logInterval == 0) {
          System.out.printf("Epoch %d: [%d]\tcontent: %.6f\tstyle: %.6f%n", e + 1, count,
              aggContentLoss / (batchId + 1), aggStyleLoss / (batchId + 1));
        }
        batchId++;
      }
    }
  }
}
