package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;

/**
 * HiFi_IFDL's localization training: a hypersphere loss ({@code IsolatingLossFunction}) pulls the
 * features of real pixels towards a center computed once from the training data; the networks are
 * trained on the GPU the user selects.
 *
 * <p>Source: https://github.com/CHELSEA234/HiFi_IFDL/issues/38
 *
 * <p>Bug: utils/custom_loss.py hard-codes {@code device = torch.device('cuda:0')} and puts the
 * loss's center there ({@code center.to(device)}), so with the networks on another GPU
 * {@code self.pdist(model_output, self.c)} met tensors on cuda:1 and cuda:0.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class HiFiIfdlLossCenterCuda0 {
  private HiFiIfdlLossCenterCuda0() {}

  /** utils/custom_loss.py */
  static final class CustomLoss {
    static final Device DEVICE = Device.parse("cuda:0"); // bug: training-state

    static final class IsolatingLossFunction {
      final Tensor c;
      final Tensor r;
      final Tensor marginMani;
      final Tensor threshold;

      IsolatingLossFunction(Tensor c, Tensor r) {
        this.c = c.clone().detach();      // center of the hypersphere
        this.r = r.clone().detach();      // radius of the hypersphere
        this.marginMani = this.r.mul(2.5);
        this.threshold = this.r.mul(1.85);
      }

      Tensor forward(Tensor modelOutput, Tensor label) {
        long bs = modelOutput.size(0);
        long featDim = modelOutput.size(1);
        modelOutput = modelOutput.permute(0, 2, 3, 1).reshape(-1, featDim);
        Tensor dist = modelOutput.sub(c).add(1e-6).square().sum(1).sqrt();
        label = label.reshape(-1);
        Tensor labelNat = label.eq(0).to(DType.FLOAT32);
        Tensor labelMani = label.eq(1).to(DType.FLOAT32);
        double labelNatSum = labelNat.sum().item(); // costs time: HostSyncInLoop
        double labelManiSum = labelMani.sum().item(); // costs time: HostSyncInLoop
        Tensor distNat = dist.mul(labelNat);
        Tensor distMani = marginMani.sub(dist).clampMin(0).mul(labelMani);
        Tensor lossNat = labelNatSum != 0 ? distNat.sum().div(labelNatSum) : Tensor.scalar(0.0, DEVICE);
        Tensor lossMani = labelManiSum != 0 ? distMani.sum().div(labelManiSum) : Tensor.scalar(0.0, DEVICE);
        return lossNat.add(lossMani).to(DEVICE);
      }
    }

    /** load_center_radius: the pre-computed center and radius, put on the module's device. */
    static Tensor[] loadCenterRadius(int featDim) {
      Tensor center = Tensor.randn(Shape.of(featDim)).mul(0.1);   // torch.load(center_radius_path)['center']
      Tensor radius = Tensor.scalar(1.0);
      return new Tensor[] {center.to(DEVICE), radius.to(DEVICE)};
    }
  }

  static final class SegNet extends Model {
    final Conv2d conv1 = new Conv2d(3, 8, 3, 1, 1, true);
    final Conv2d conv2 = new Conv2d(8, 18, 3, 1, 1, true);

    Tensor forward(Tensor image) {
      return conv2.forward(conv1.forward(image).relu());
    }
  }

  /** Runs the program with small random data; the networks are on the second GPU. */
  public static void run(Device device) throws Exception {
    Device gpu = device.isCuda() ? Device.cuda(1) : device;   // the GPU the user selected
    SegNet segNet = new SegNet();
    segNet.toDevice(gpu);
    Adam optimizer = new Adam(segNet.parameters(), 1e-4);
    Tensor[] centerRadius = CustomLoss.loadCenterRadius(18);
    CustomLoss.IsolatingLossFunction lossFunction =
        new CustomLoss.IsolatingLossFunction(centerRadius[0], centerRadius[1]);
    for (int step = 0; step < 2; step++) {
      Tensor image = Tensor.randn(2, 3, 8, 8, gpu);
      Tensor mask = Tensor.randint(0, 2, Shape.of(2, 8, 8), gpu);
      optimizer.zeroGrad();
      Tensor loss = lossFunction.forward(segNet.forward(image), mask);
      loss.backward();
      optimizer.step();
    }
  }
}
