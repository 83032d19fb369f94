package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Sgd;

/**
 * An MMAction2 recognizer whose head computes a class-weighted cross entropy on soft labels (the
 * labels that MixUp/CutMix blending produce).
 *
 * <p>Source: https://github.com/open-mmlab/mmaction2/pull/1188
 *
 * <p>Bug: {@code CrossEntropyLoss.__init__} kept {@code self.class_weight = torch.Tensor(class_weight)}
 * as a plain attribute, so moving the recognizer to the GPU left it on the CPU; the hard-label branch
 * moved it ({@code .to(cls_score.device)}) but the soft-label branch computed
 * {@code lsm * self.class_weight.unsqueeze(0)} with {@code lsm} on cuda:0.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class MmactionClassWeightSoftLabel {
  private MmactionClassWeightSoftLabel() {}

  /** mmaction/models/losses/cross_entropy_loss.py, CrossEntropyLoss (a BaseWeightedLoss). */
  static final class CrossEntropyLoss {
    final double lossWeight;
    final Tensor classWeight;

    CrossEntropyLoss(double lossWeight, float[] classWeight) {
      this.lossWeight = lossWeight;
      this.classWeight = classWeight == null ? null : Tensor.of(classWeight);
    }

    Tensor forward(Tensor clsScore, Tensor label) {
      Tensor lossCls;
      if (clsScore.shape().equals(label.shape())) {
        // calculate loss for soft label
        Tensor lsm = clsScore.logSoftmax(1);
        if (classWeight != null) {
          lsm = lsm.mul(classWeight.unsqueeze(0));            // bug: training-state
        }
        lossCls = label.mul(lsm).sum(1).neg();
        if (classWeight != null) {
          lossCls = lossCls.sum().div(classWeight.unsqueeze(0).mul(label).sum()); // same bug
        } else {
          lossCls = lossCls.mean();
        }
      } else {
        // calculate loss for hard label
        Tensor weight = classWeight.to(clsScore.device());
        Tensor nll = clsScore.logSoftmax(1).gather(1, label.unsqueeze(1)).squeeze(1).neg();
        Tensor w = weight.indexSelect(0, label);
        lossCls = nll.mul(w).sum().div(w.sum());
      }
      return lossCls.mul(lossWeight);
    }
  }

  static final class TsnHead extends Model {
    final Linear fcCls = new Linear(16, 4);
    final CrossEntropyLoss lossCls = new CrossEntropyLoss(1.0, new float[] {1f, 2f, 1f, 0.5f});

    Tensor forward(Tensor x) {
      return fcCls.forward(x);
    }

    Tensor loss(Tensor clsScore, Tensor labels) {
      return lossCls.forward(clsScore, labels);
    }
  }

  static final class Recognizer2D extends Model {
    final Linear backbone = new Linear(32, 16);
    final TsnHead clsHead = new TsnHead();

    /** forward_train with MixupBlending: images and one-hot labels are mixed. */
    Tensor forwardTrain(Tensor imgs, Tensor labels) {
      double lam = 0.8;
      Tensor randIndex = Tensor.arange(imgs.size(0) - 1, -1, -1, DType.INT64, imgs.device());
      Tensor oneHot = Tensor.oneHot(labels, 4).to(DType.FLOAT32);
      imgs = imgs.mul(lam).add(imgs.indexSelect(0, randIndex).mul(1 - lam));
      Tensor mixedLabel = oneHot.mul(lam).add(oneHot.indexSelect(0, randIndex).mul(1 - lam));
      Tensor clsScore = clsHead.forward(backbone.forward(imgs).relu());
      return clsHead.loss(clsScore, mixedLabel);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Recognizer2D model = new Recognizer2D();
    model.toDevice(device);
    Sgd optimizer = new Sgd(model.parameters(), 0.01).momentum(0.9);
    for (int i = 0; i < 3; i++) {
      Tensor imgs = Tensor.randn(8, 32, device);
      Tensor labels = Tensor.randint(0, 4, Shape.of(8), device);
      optimizer.zeroGrad();
      model.forwardTrain(imgs, labels).backward();
      optimizer.step();
    }
  }
}
