package dev.ondevice.optim;

import static dev.ondevice.optim.OptimFixtures.assertClose;
import static dev.ondevice.optim.OptimFixtures.message;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.DeviceMismatchException;
import dev.ondevice.OptimizerSteps;
import dev.ondevice.OptimizerSteps.AdamStep;
import dev.ondevice.OptimizerSteps.SgdStep;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The fused updates behind the optimizers ({@link OptimizerSteps}) on float32 tensors larger than
 * one chunk of the contiguous kernel, with non-contiguous gradients, and with a momentum that
 * decays towards the subnormal range; and their argument checks.
 */
class FusedUpdateTest {
  /** 3 × 1,701: two whole chunks of 2,048 floats and a partial one. */
  private static final Shape SHAPE = Shape.of(3, 1701);

  private static final int N = 3 * 1701;
  private static final int STEPS = 4;

  private static double[] random(Random r, double scale) {
    double[] v = new double[N];
    for (int i = 0; i < N; i++) {
      v[i] = scale * (2 * r.nextDouble() - 1);
    }
    return v;
  }

  private static double[][] grads() {
    Random r = new Random(7);
    double[][] g = new double[STEPS][];
    for (int t = 0; t < STEPS; t++) {
      g[t] = random(r, 1);
    }
    return g;
  }

  private static Parameter parameter(double[] theta) {
    return new Parameter(Tensor.of(theta, SHAPE, Device.cpu()).to(DType.FLOAT32));
  }

  /** The gradient as given, or the same values in a transposed (non-contiguous) layout. */
  private static Tensor grad(double[] values, boolean transposed) {
    if (!transposed) {
      return Tensor.of(values, SHAPE, Device.cpu()).to(DType.FLOAT32);
    }
    double[] columnMajor = new double[N];
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 1701; j++) {
        columnMajor[j * 3 + i] = values[i * 1701 + j];
      }
    }
    Tensor t =
        Tensor.of(columnMajor, Shape.of(1701, 3), Device.cpu()).to(DType.FLOAT32).transpose(0, 1);
    assertTrue(!t.isContiguous(), "the gradient must be strided for this case");
    return t;
  }

  @Test
  void sgdWithEveryOptionMatchesTheReferenceOverSeveralChunks() {
    for (boolean transposed : new boolean[] {false, true}) {
      double[] theta = random(new Random(3), 2);
      double[][] g = grads();
      Parameter p = parameter(theta);
      Sgd sgd = new Sgd(List.of(p), 0.05).momentum(0.9).nesterov(true).weightDecay(0.01);
      double[][] expected = SgdTest.reference(theta, g, 0.05, 0.9, 0.0, 0.01, true);
      for (int t = 0; t < STEPS; t++) {
        p.setGrad(grad(g[t], transposed));
        sgd.step();
        assertClose(
            expected[t],
            p.toDoubleArray(),
            2e-5,
            "SGD step " + (t + 1) + (transposed ? ", strided" : ""));
      }
    }
  }

  @Test
  void adamAndAdamWWithAmsgradMatchTheReferenceOverSeveralChunks() {
    for (boolean decoupled : new boolean[] {false, true}) {
      for (boolean transposed : new boolean[] {false, true}) {
        double[] theta = random(new Random(5), 2);
        double[][] g = grads();
        Parameter p = parameter(theta);
        Optimizer adam =
            decoupled
                ? new AdamW(List.of(p), 0.01).weightDecay(0.1).amsgrad(true)
                : new Adam(List.of(p), 0.01).weightDecay(0.1).amsgrad(true);
        double[][] expected =
            AdamTest.reference(theta, g, 0.01, 0.9, 0.999, 1e-8, 0.1, true, decoupled);
        for (int t = 0; t < STEPS; t++) {
          p.setGrad(grad(g[t], transposed));
          adam.step();
          assertClose(
              expected[t],
              p.toDoubleArray(),
              2e-5,
              (decoupled ? "AdamW" : "Adam")
                  + " step "
                  + (t + 1)
                  + (transposed ? ", strided" : ""));
        }
      }
    }
  }

  /**
   * Every value is 0 or a normal float: no subnormal, whose arithmetic is a hundred times slower.
   */
  private static void assertNoSubnormal(Tensor t, String what) {
    for (float v : t.toFloatArray()) {
      assertTrue(v == 0 || Math.abs(v) >= Float.MIN_NORMAL, what + " holds the subnormal " + v);
    }
  }

  @Test
  void aMomentumWhoseGradientVanishedDecaysToZeroNotToSubnormals() {
    for (boolean transposed : new boolean[] {false, true}) {
      double[] zeros = new double[N];
      double[] tiny = new double[N];
      java.util.Arrays.fill(tiny, 1e-36);
      Parameter p = parameter(random(new Random(1), 1));
      Sgd sgd = new Sgd(List.of(p), 0.05).momentum(0.5);
      p.setGrad(grad(tiny, transposed));
      sgd.step();
      for (int t = 0; t < 40; t++) {
        p.setGrad(grad(zeros, transposed));
        sgd.step();
        assertNoSubnormal(
            sgd.state(0).get(Sgd.MOMENTUM_BUFFER), "the momentum after step " + (t + 2));
      }
      // 1e-36 · 0.5^40 is far below the smallest subnormal's range of 1.2e-38 down to 1.4e-45.
      assertEquals(
          0f,
          sgd.state(0).get(Sgd.MOMENTUM_BUFFER).abs().max().item(),
          "the momentum has decayed to 0");
    }
  }

  @Test
  void adamMomentsWhoseGradientVanishedDecayToZeroNotToSubnormals() {
    double[] tiny = new double[N];
    java.util.Arrays.fill(tiny, 1e-20);
    Parameter p = parameter(random(new Random(1), 1));
    Adam adam = new Adam(List.of(p), 0.001);
    p.setGrad(grad(tiny, false));
    adam.step();
    for (int t = 0; t < 200; t++) {
      p.setGrad(grad(new double[N], false));
      adam.step();
      assertNoSubnormal(adam.state(0).get(Adam.EXP_AVG), "exp_avg after step " + (t + 2));
      assertNoSubnormal(adam.state(0).get(Adam.EXP_AVG_SQ), "exp_avg_sq after step " + (t + 2));
    }
  }

  @Test
  void withAnEpsNearZeroAdamKeepsATinySecondMoment() {
    // PyTorch: m = 0.1 · 1e-18, v = 0.001 · 1e-36 = 1e-39 (subnormal, kept), m̂ / √v̂ = 1, so the
    // parameter moves by -lr. Flushing v would divide by zero.
    Parameter p =
        new Parameter(Tensor.of(new double[] {0.5}, Shape.of(1), Device.cpu()).to(DType.FLOAT32));
    Adam adam = new Adam(List.of(p), 0.01).eps(0);
    p.setGrad(Tensor.of(new double[] {1e-18}, Shape.of(1), Device.cpu()).to(DType.FLOAT32));
    adam.step();
    assertClose(new double[] {0.49}, p.toDoubleArray(), 1e-5, "one Adam step with eps 0");
  }

  @Test
  void theFusedUpdatesCheckTheirArguments() {
    Tensor param = Tensor.zeros(Shape.of(4));
    Tensor grad = Tensor.ones(Shape.of(4));
    SgdStep plain = new SgdStep(0.1, 0, 0, 0, false, false);
    message(
        IllegalStateException.class,
        () -> OptimizerSteps.sgd(param, grad, null, plain),
        "OptimizerSteps.sgd",
        "inside Autograd.noGrad()");
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      message(
          IllegalArgumentException.class,
          () -> OptimizerSteps.sgd(param, Tensor.ones(Shape.of(5)), null, plain),
          "grad must have the parameter's shape and dtype, [4] float32, got [5] float32");
      message(
          IllegalArgumentException.class,
          () -> OptimizerSteps.sgd(param, grad, null, new SgdStep(0.1, 0.9, 0, 0, false, true)),
          "a momentum buffer is needed exactly when the momentum is not 0");
      message(
          DeviceMismatchException.class,
          () -> OptimizerSteps.sgd(param, grad.to(Device.cuda(0)), null, plain),
          "cuda:0",
          "cpu",
          "grad");
      message(
          IllegalArgumentException.class,
          () ->
              OptimizerSteps.adam(
                  param,
                  grad,
                  Tensor.zeros(Shape.of(4)),
                  Tensor.zeros(Shape.of(1)).expand(4),
                  null,
                  new AdamStep(0.1, 0.9, 0.999, 1e-8, 0, false, false, 1)),
          "expAvgSq is an expanded view");
      message(
          IllegalArgumentException.class,
          () ->
              OptimizerSteps.adam(
                  param,
                  grad,
                  Tensor.zeros(Shape.of(4)),
                  Tensor.zeros(Shape.of(4)),
                  null,
                  new AdamStep(0.1, 0.9, 0.999, 1e-8, 0, false, true, 1)),
          "maxExpAvgSq is needed exactly with AMSGrad");
      message(
          IllegalArgumentException.class,
          () -> OptimizerSteps.sgd(param, param, null, plain),
          "param and grad share memory");
      message(
          IllegalArgumentException.class,
          () ->
              OptimizerSteps.adam(
                  param,
                  grad,
                  Tensor.zeros(Shape.of(4)),
                  Tensor.zeros(Shape.of(4)),
                  null,
                  new AdamStep(0.1, 0.9, 0.999, 1e-8, 0, false, false, 0)),
          "the step count starts at 1, got 0");
      OptimizerSteps.sgd(param, grad, null, plain);
    }
    assertClose(
        new double[] {-0.1, -0.1, -0.1, -0.1},
        param.toDoubleArray(),
        1e-7,
        "a valid update still applies");
  }
}
