package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prodigy (as in prodigyopt, and the Prodigy_adv port of Advanced_Optimizers): each step estimates
 * the distance to the solution {@code d} from {@code d_numerator}, a running sum of {@code <grad, p0 -
 * p>}, and {@code d_denom}, the sum of {@code |s|} over all parameters, then applies an Adam-style
 * update scaled by {@code d * lr}.
 *
 * <p>Source: https://github.com/Koratahiu/Advanced_Optimizers/pull/5 (reported upstream as
 * https://github.com/konstmish/prodigy/issues/38)
 *
 * <p>Bug: the per-parameter loop accumulates both sums with {@code .item()} ({@code
 * torch.dot(...).item()} and {@code s.abs().sum().item()}), "thousands of synchronizations, one for
 * each parameter"; the fix keeps {@code d_numerator} and {@code d_denom} as device tensors, which made
 * an optimizer step about 50% faster.
 *
 * <p>Outcome: completes (costs time)
 */
public final class AdvancedOptimizersProdigyItemPerParameter {
  private AdvancedOptimizersProdigyItemPerParameter() {}

  static final class ParamState {
    Tensor s;
    Tensor p0;
    Tensor expAvg;
    Tensor expAvgSq;
  }

  /** prodigy.py step(), one parameter group, no weight decay, no bias correction. */
  static final class Prodigy {
    final List<Parameter> params;
    final Map<Parameter, ParamState> state = new IdentityHashMap<>();
    final double lr = 1.0;
    final double beta1 = 0.9;
    final double beta2 = 0.999;
    final double eps = 1e-8;
    final double d0 = 1e-6;
    final double dCoef = 1.0;
    final double growthRate = Double.POSITIVE_INFINITY;
    double d = 1e-6;
    double dMax = 1e-6;
    double dNumerator = 0.0;

    Prodigy(List<Parameter> params) {
      this.params = params;
    }

    void zeroGrad() {
      for (Parameter p : params) {
        p.setGrad(null);
      }
    }

    void step() {
      double beta3 = Math.sqrt(beta2);
      double dlr = d * lr;
      dNumerator *= beta3;
      double dDenom = 0.0;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (Parameter p : params) {
          Tensor grad = p.grad();
          if (grad == null) {
            continue;
          }
          ParamState st = state.computeIfAbsent(p, k -> {
            ParamState n = new ParamState();
            n.s = Tensor.zerosLike(p);
            n.p0 = p.detach().clone();
            n.expAvg = Tensor.zerosLike(p);
            n.expAvgSq = Tensor.zerosLike(p);
            return n;
          });
          dNumerator += (d / d0) * dlr * grad.flatten().mul(st.p0.sub(p.detach()).flatten()).sum().item(); // bug: per-step
          st.expAvg.muli(beta1).addi(grad, d * (1 - beta1));
          st.expAvgSq.muli(beta2).addi(grad.mul(grad), d * d * (1 - beta2));
          st.s.muli(beta3).addi(grad, (d / d0) * dlr);
          dDenom += st.s.abs().sum().item(); // bug: per-step
        }
        if (dDenom == 0) {
          return;
        }
        double dHat = dCoef * dNumerator / dDenom;
        if (d == d0) {
          d = Math.max(d, dHat);
        }
        dMax = Math.max(dMax, dHat);
        d = Math.min(dMax, d * growthRate);
        for (Parameter p : params) {
          if (p.grad() == null) {
            continue;
          }
          ParamState st = state.get(p);
          Tensor denom = st.expAvgSq.sqrt().add(d * eps);
          p.detach().addi(st.expAvg.div(denom), -dlr);
        }
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Sequential model = new Sequential(new Linear(10, 32), new ReLU(), new Linear(32, 32), new ReLU(), new Linear(32, 3));
    model.toDevice(device);
    Prodigy optimizer = new Prodigy(model.parameters());
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    for (int step = 0; step < 4; step++) {
      Tensor x = Tensor.randn(16, 10, device);
      Tensor y = Tensor.randint(0, 3, Shape.of(16), device);
      Tensor loss = criterion.forward(model.forward(x), y);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
    System.out.println("d = " + optimizer.d);
  }
}
