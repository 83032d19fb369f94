package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.AvgPool2d;
import dev.ondevice.nn.BatchNorm2d;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.List;

/**
 * The model-parallel tutorial: ToyModel's two layers on cuda:0 and cuda:1 with the activation
 * moved between them, a ResNet split into {@code seq1} on cuda:0 and {@code seq2} and {@code fc} on
 * cuda:1, and its pipelined variant; the labels are moved to {@code outputs.device}.
 *
 * <p>Source: https://github.com/pytorch/tutorials/blob/03b277366b12fc14f56a387cc5ec4cdf1ede744a/intermediate_source/model_parallel_tutorial.py
 *
 * <p>Ported: ToyModel and its training snippet ({@code labels = torch.randn(20, 5).to('cuda:1')}),
 * ModelParallelResNet50 (the base network's modules regrouped into seq1 and seq2, each moved with
 * {@code .to('cuda:N')}, forward moving the activation to cuda:1), PipelineParallelResNet50's split
 * forward, and train(model) with its one-hot labels moved to {@code outputs.device}. Left out:
 * torchvision's ResNet-50 (a small network with the same module names stands in), the timing
 * and plots. {@code scatter_} is oneHot, {@code x.split} a list of {@code narrow}s.
 *
 * <p>Outcome: completes
 */
public final class ModelParallelTutorialTwoGpus {
  private ModelParallelTutorialTwoGpus() {}

  static final int NUM_CLASSES = 10;

  static final class ToyModel extends Model {
    final Linear net1 = new Linear(10, 10);
    final ReLU relu = new ReLU();
    final Linear net2 = new Linear(10, 5);

    ToyModel() {
      net1.toDevice(Device.parse("cuda:0"));
      net2.toDevice(Device.parse("cuda:1"));
    }

    Tensor forward(Tensor x) {
      x = relu.forward(net1.forward(x.to(Device.parse("cuda:0"))));
      return net2.forward(x.to(Device.parse("cuda:1")));
    }
  }

  /** Stands for torchvision's ResNet: the same attribute names, small layers. */
  static class ResNet extends Model {
    final Conv2d conv1 = new Conv2d(3, 8, 3, 2, 1, false);
    final BatchNorm2d bn1 = new BatchNorm2d(8);
    final ReLU relu = new ReLU();
    final MaxPool2d maxpool = new MaxPool2d(2);
    final Conv2d layer1 = new Conv2d(8, 8, 3, 1, 1, true);
    final Conv2d layer2 = new Conv2d(8, 16, 3, 2, 1, true);
    final Conv2d layer3 = new Conv2d(16, 32, 3, 2, 1, true);
    final Conv2d layer4 = new Conv2d(32, 32, 3, 1, 1, true);
    final AvgPool2d avgpool = new AvgPool2d(2);
    final Linear fc = new Linear(32, NUM_CLASSES);

    Tensor forward(Tensor x) {
      x = maxpool.forward(relu.forward(bn1.forward(conv1.forward(x))));
      x = avgpool.forward(layer4.forward(layer3.forward(layer2.forward(layer1.forward(x)))));
      return fc.forward(x.view(x.size(0), -1));
    }
  }

  static class ModelParallelResNet50 extends ResNet {
    final Sequential seq1 = new Sequential(conv1, bn1, relu, maxpool, layer1, layer2);
    final Sequential seq2 = new Sequential(layer3, layer4, avgpool);

    ModelParallelResNet50() {
      seq1.toDevice(Device.parse("cuda:0"));
      seq2.toDevice(Device.parse("cuda:1"));
      fc.toDevice(Device.parse("cuda:1"));
    }

    @Override
    Tensor forward(Tensor x) {
      x = seq2.forward(seq1.forward(x).to(Device.parse("cuda:1")));
      return fc.forward(x.view(x.size(0), -1));
    }
  }

  static final class PipelineParallelResNet50 extends ModelParallelResNet50 {
    final int splitSize;

    PipelineParallelResNet50(int splitSize) {
      this.splitSize = splitSize;
    }

    @Override
    Tensor forward(Tensor x) {
      List<Tensor> splits = new ArrayList<>();
      for (long start = 0; start < x.size(0); start += splitSize) {
        splits.add(x.narrow(0, start, Math.min(splitSize, x.size(0) - start)));
      }
      Tensor sPrev = seq1.forward(splits.get(0)).to(Device.parse("cuda:1"));
      List<Tensor> ret = new ArrayList<>();
      for (Tensor sNext : splits.subList(1, splits.size())) {
        sPrev = seq2.forward(sPrev);
        ret.add(fc.forward(sPrev.view(sPrev.size(0), -1)));
        sPrev = seq1.forward(sNext).to(Device.parse("cuda:1"));
      }
      sPrev = seq2.forward(sPrev);
      ret.add(fc.forward(sPrev.view(sPrev.size(0), -1)));
      return Tensor.cat(ret);
    }
  }

  static void train(ResNet model, int numBatches, int batchSize) {
    model.train();
    MseLoss lossFn = new MseLoss();
    Sgd optimizer = new Sgd(model.parameters(), 0.001);
    Tensor oneHotIndices = Tensor.randint(0, NUM_CLASSES, Shape.of(batchSize)).view(batchSize, 1);
    for (int b = 0; b < numBatches; b++) {
      Tensor inputs = Tensor.randn(batchSize, 3, 32, 32);
      Tensor labels = Tensor.oneHot(oneHotIndices.squeeze(1), NUM_CLASSES).to(DType.FLOAT32);
      optimizer.zeroGrad();
      Tensor outputs = model.forward(inputs.to(Device.parse("cuda:0")));  // costs time: CreateThenMove
      labels = labels.to(outputs.device());  // costs time: CreateThenMove
      lossFn.forward(outputs, labels).backward();
      optimizer.step();
    }
  }

  /** Runs the program with small random data on {@code device} (the tutorial's own devices, cuda:0 and cuda:1). */
  public static void run(Device device) throws Exception {
    ToyModel model = new ToyModel();
    MseLoss lossFn = new MseLoss();
    Sgd optimizer = new Sgd(model.parameters(), 0.001);
    optimizer.zeroGrad();
    Tensor outputs = model.forward(Tensor.randn(20, 10));
    Tensor labels = Tensor.randn(20, 5).to(Device.parse("cuda:1"));  // costs time: CreateThenMove
    lossFn.forward(outputs, labels).backward();
    optimizer.step();
    train(new ModelParallelResNet50(), 2, 12);
    train(new PipelineParallelResNet50(4), 2, 12);
  }
}
