package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Model;

/**
 * Exact GP regression in the style of GPyTorch's {@code ExactGP}: in evaluation mode the first
 * prediction builds a prediction strategy that caches {@code (K + noise I)^-1 y}, computed with
 * conjugate gradients, and later predictions reuse it.
 *
 * <p>Source: https://github.com/cornellius-gp/gpytorch/issues/1619
 *
 * <p>Bug: the model is evaluated on the CPU, then moved with {@code model.cuda()}; the training
 * data and hyperparameters move, but {@code self.prediction_strategy}, a plain object holding
 * {@code mean_cache}, does not, so the next prediction multiplies a CUDA test-train covariance by
 * the CPU cache. (GPyTorch issue 1859 is the same bug in the other direction, GPU to CPU.)
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class GpytorchPredictionCacheNotMoved {
  private GpytorchPredictionCacheNotMoved() {}

  /** ScaleKernel(RBFKernel()). */
  static final class ScaledRbfKernel extends Model {
    final Parameter rawLengthscale = new Parameter(Tensor.full(Shape.of(1), -1.0));
    final Parameter rawOutputscale = new Parameter(Tensor.zeros(Shape.of(1)));

    Tensor forward(Tensor x1, Tensor x2) {
      Tensor lengthscale = rawLengthscale.exp();
      Tensor sqDist = x1.sub(x2.t()).div(lengthscale).square();
      return sqDist.mul(-0.5).exp().mul(rawOutputscale.exp());
    }
  }

  /** gpytorch.models.exact_prediction_strategies.DefaultPredictionStrategy: a plain object. */
  static final class PredictionStrategy {
    final Tensor meanCache;

    PredictionStrategy(Tensor trainTrainCovar, Tensor trainTargets) {
      meanCache = linearCg(trainTrainCovar, trainTargets, 20);
    }

    static Tensor linearCg(Tensor a, Tensor rhs, int iterations) {
      Tensor x = Tensor.zerosLike(rhs);
      Tensor r = rhs;
      Tensor p = r;
      Tensor rs = r.mul(r).sum();
      for (int i = 0; i < iterations; i++) {
        Tensor ap = a.matmul(p);
        Tensor alpha = rs.div(p.mul(ap).sum().add(1e-10));
        x = x.add(p.mul(alpha));
        r = r.sub(ap.mul(alpha));
        Tensor rsNew = r.mul(r).sum();
        p = r.add(p.mul(rsNew.div(rs.add(1e-10))));
        rs = rsNew;
      }
      return x;
    }

    Tensor exactPredictiveMean(Tensor testMean, Tensor testTrainCovar) {
      return testMean.add(testTrainCovar.matmul(meanCache)); // bug: held-outside-models
    }
  }

  /** The user's PlainGP(ExactGP) with a GaussianLikelihood folded in. */
  static final class PlainGp extends Model {
    @Buffer Tensor trainInputs;
    @Buffer Tensor trainTargets;
    final ScaledRbfKernel covarModule = new ScaledRbfKernel();
    final Parameter rawNoise = new Parameter(Tensor.full(Shape.of(1), -3.0));
    PredictionStrategy predictionStrategy;

    PlainGp(Tensor trainX, Tensor trainY) {
      trainInputs = trainX;
      trainTargets = trainY;
    }

    /** ExactGP.__call__ in evaluation mode: the predictive mean. */
    Tensor call(Tensor x) {
      if (predictionStrategy == null) {
        long n = trainInputs.size(0);
        Tensor trainTrainCovar = covarModule.forward(trainInputs, trainInputs)
            .add(Tensor.eye(n, trainInputs.device()).mul(rawNoise.exp()));
        predictionStrategy = new PredictionStrategy(trainTrainCovar, trainTargets);
      }
      Tensor testMean = Tensor.zeros(Shape.of(x.size(0)), x.dtype(), x.device()); // ZeroMean
      Tensor testTrainCovar = covarModule.forward(x, trainInputs);
      return predictionStrategy.exactPredictiveMean(testMean, testTrainCovar);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Tensor xTrain = Tensor.arange(-1.0, 1.0, 0.04, DType.FLOAT32, Device.cpu()).reshape(-1, 1);
    Tensor yTrain = xTrain.reshape(-1).sin();
    PlainGp model = new PlainGp(xTrain, yTrain);
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor xTest = Tensor.arange(-1.0, 1.0, 0.1, DType.FLOAT32, Device.cpu()).reshape(-1, 1);
      model.call(xTest);
      model.toDevice(device);
      Tensor preds = model.call(xTrain.to(device));
      preds.sum().item();
    }
  }
}
