package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Sgd;

/**
 * SegNeXt's Hamburger module from MMSegmentation's {@code LightHamHead}: between two 1x1
 * convolutions, {@code NMF2D} factorizes the feature map with a few multiplicative-update steps
 * starting from random bases drawn in every forward ({@code rand_init=True}).
 *
 * <p>Source: https://github.com/open-mmlab/mmsegmentation/issues/3231
 *
 * <p>Bug: {@code NMF2D._build_bases} draws {@code bases = torch.rand((B * S, D, R)).to(device)}:
 * created on the CPU then copied to the GPU in every forward, where {@code torch.rand(..., device=device)}
 * would create them in place (the issue measured it "way faster").
 *
 * <p>Outcome: completes (costs time)
 */
public final class MmsegHamburgerRandBasesCopy {
  private MmsegHamburgerRandBasesCopy() {}

  /** mmseg/models/decode_heads/ham_head.py NMF2D (S = 1). */
  static final class Nmf2d extends Model {
    final int s = 1;
    final int r;
    final int trainSteps = 6;
    final int evalSteps = 7;

    Nmf2d(int r) {
      this.r = r;
    }

    Tensor buildBases(long b, long s, long d, long r, Device device) {
      Tensor bases = Tensor.rand(Shape.of(b * s, d, r)).to(device); // bug: in-method
      return bases.div(bases.square().sum(1, true).sqrt().clampMin(1e-12)); // F.normalize(dim=1)
    }

    Tensor[] localStep(Tensor x, Tensor bases, Tensor coef) {
      Tensor numerator = x.transpose(1, 2).matmul(bases);
      Tensor denominator = coef.matmul(bases.transpose(1, 2).matmul(bases));
      coef = coef.mul(numerator).div(denominator.add(1e-6));
      numerator = x.matmul(coef);
      denominator = bases.matmul(coef.transpose(1, 2).matmul(coef));
      bases = bases.mul(numerator).div(denominator.add(1e-6));
      return new Tensor[] {bases, coef};
    }

    Tensor forward(Tensor x) {
      long b = x.size(0);
      long c = x.size(1);
      long h = x.size(2);
      long w = x.size(3);
      long d = c / s;
      x = x.reshape(b * s, d, h * w);
      Tensor bases = buildBases(b, s, d, r, x.device());
      Tensor coef = x.transpose(1, 2).matmul(bases).softmax(2); // inv_t = 1
      int steps = isTraining() ? trainSteps : evalSteps;
      for (int i = 0; i < steps; i++) {
        Tensor[] updated = localStep(x, bases, coef);
        bases = updated[0];
        coef = updated[1];
      }
      Tensor numerator = x.transpose(1, 2).matmul(bases);
      Tensor denominator = coef.matmul(bases.transpose(1, 2).matmul(bases));
      coef = coef.mul(numerator).div(denominator.add(1e-6));
      return bases.matmul(coef.transpose(1, 2)).reshape(b, c, h, w);
    }
  }

  /** Hamburger: ham_in, NMF2D, ham_out. */
  static final class Hamburger extends Model {
    final Conv2d hamIn;
    final Nmf2d ham = new Nmf2d(8);
    final Conv2d hamOut;

    Hamburger(int channels) {
      hamIn = new Conv2d(channels, channels, 1);
      hamOut = new Conv2d(channels, channels, 1);
    }

    Tensor forward(Tensor x) {
      Tensor enjoy = hamIn.forward(x).relu();
      enjoy = ham.forward(enjoy);
      enjoy = hamOut.forward(enjoy);
      return x.add(enjoy).relu();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Hamburger hamburger = new Hamburger(16);
    hamburger.toDevice(device);
    Sgd optimizer = new Sgd(hamburger.parameters(), 0.01);
    for (int step = 0; step < 3; step++) {
      Tensor features = Tensor.rand(Shape.of(2, 16, 6, 6), device);
      Tensor loss = hamburger.forward(features).mean();
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }
}
