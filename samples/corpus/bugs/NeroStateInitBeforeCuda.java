package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Optimizer;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The Nero optimizer, which builds its per-neuron state ({@code exp_avg_sq}, {@code scale}) in its
 * constructor, used on a network that is moved to the GPU after the optimizer was created.
 *
 * <p>Source: https://github.com/jxbz/nero/issues/1
 *
 * <p>Bug: {@code Nero.__init__} creates {@code state['exp_avg_sq'] = torch.zeros_like(neuron_norm(p))}
 * on the parameters' device at construction; the user built the optimizer before {@code net.cuda()},
 * so {@code step} computed {@code self.beta * state['exp_avg_sq'] + (1-self.beta) * neuron_norm(p.grad)**2}
 * with a CPU state and a cuda:0 gradient.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class NeroStateInitBeforeCuda {
  private NeroStateInitBeforeCuda() {}

  static Tensor neuronNorm(Tensor x) {
    if (x.dim() > 1) {
      return x.view(x.size(0), -1).square().sum(1, true).sqrt();
    }
    return x.abs();
  }

  static Tensor neuronMean(Tensor x) {
    return x.view(x.size(0), -1).mean(1, true);
  }

  static final class Nero extends Optimizer {
    final double beta;
    final Map<Parameter, Map<String, Tensor>> neroState = new IdentityHashMap<>();

    Nero(Iterable<Parameter> params, double lr, double beta) {
      super(toList(params), lr);
      this.beta = beta;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (Parameter p : parameters()) {
          if (p.dim() > 1) {
            p.subi(neuronMean(p));
            p.divi(neuronNorm(p));
          }
          Map<String, Tensor> state = new HashMap<>();
          state.put("exp_avg_sq", Tensor.zerosLike(neuronNorm(p)));
          state.put("scale", neuronNorm(p).mean());
          neroState.put(p, state);
        }
      }
    }

    private static java.util.List<Parameter> toList(Iterable<Parameter> params) {
      java.util.List<Parameter> out = new java.util.ArrayList<>();
      params.forEach(out::add);
      return out;
    }

    @Override
    protected void update(Parameter p, Tensor grad, Map<String, Tensor> unused, long step) {
      Map<String, Tensor> state = neroState.get(p);
      double biasCorrection = 1 - Math.pow(beta, step);
      state.put("exp_avg_sq",
          state.get("exp_avg_sq").mul(beta).add(neuronNorm(grad).square().mul(1 - beta)));
      Tensor gradNormed = grad.div(state.get("exp_avg_sq").div(biasCorrection).sqrt());
      gradNormed = gradNormed.maskedFill(gradNormed.isnan(), 0);
      p.subi(gradNormed.mul(state.get("scale")).mul(learningRate()));
      if (p.dim() > 1) {
        p.subi(neuronMean(p));
        p.divi(neuronNorm(p));
      }
    }

    @Override
    protected Map<String, String> hyperParameters() {
      return Map.of("beta", Double.toString(beta));
    }
    @Override protected java.util.Set<String> stateNames() { return java.util.Set.of(); } // its own state map
    @Override
    protected void setHyperParameters(Map<String, String> values) {}
  }

  static final class Net extends Model {
    final Linear fc1 = new Linear(10, 32);
    final Linear fc2 = new Linear(32, 4);

    Tensor forward(Tensor x) {
      return fc2.forward(fc1.forward(x).relu());
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Net net = new Net();
    Nero optimizer = new Nero(net.parameters(), 0.01, 0.999); // bug: training-state
    net.toDevice(device);                                       // net = net.cuda()
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    for (int i = 0; i < 3; i++) {
      Tensor x = Tensor.randn(8, 10, device);
      Tensor y = Tensor.randint(0, 4, dev.ondevice.Shape.of(8), device);
      optimizer.zeroGrad();
      criterion.forward(net.forward(x), y).backward();
      optimizer.step();
    }
  }
}
