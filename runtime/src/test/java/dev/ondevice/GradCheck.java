package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;

/**
 * Checks autograd against central finite differences in float64.
 *
 * <p>For a function {@code f} of float64 input tensors (each on its own device), {@link #check}
 * computes the gradient of {@code sum(f(x) * w)}, for a fixed random weight tensor {@code w} of the
 * output's shape, twice: analytically, with {@link Tensor#backward()} from leaves that share the
 * inputs' memory and layout, and numerically, by perturbing a CPU copy of each input element by
 * element by {@code +-}{@link #EPS}, moving it to the input's device and evaluating {@code f}
 * again. The gradients must agree to {@link #TOLERANCE}, relative to the numerical value where that
 * exceeds 1, and must have the shape, dtype and device of their input.
 */
final class GradCheck {
  /** The finite-difference step. */
  static final double EPS = 1e-6;

  /** The largest error allowed, absolute below magnitude 1 and relative above. */
  static final double TOLERANCE = 1e-6;

  private static final long WEIGHT_SEED = 20240607L;

  /** A function of any number of tensors: the op under test. */
  @FunctionalInterface
  interface Fn {
    Tensor apply(Tensor[] inputs);
  }

  /** A function of one tensor. */
  @FunctionalInterface
  interface Fn1 {
    Tensor apply(Tensor x);
  }

  /** A function of two tensors. */
  @FunctionalInterface
  interface Fn2 {
    Tensor apply(Tensor a, Tensor b);
  }

  /** A function of three tensors. */
  @FunctionalInterface
  interface Fn3 {
    Tensor apply(Tensor a, Tensor b, Tensor c);
  }

  private GradCheck() {}

  /** Checks the gradient of {@code f} at {@code x}. */
  static void check(Fn1 f, Tensor x) {
    check("f", f, x);
  }

  /** As {@link #check(Fn1, Tensor)}, naming the case in failure messages. */
  static void check(String name, Fn1 f, Tensor x) {
    checkAll(name, in -> f.apply(in[0]), x);
  }

  /** Checks the gradients of {@code f} with respect to both inputs. */
  static void check(String name, Fn2 f, Tensor a, Tensor b) {
    checkAll(name, in -> f.apply(in[0], in[1]), a, b);
  }

  /** Checks the gradients of {@code f} with respect to the three inputs. */
  static void check(String name, Fn3 f, Tensor a, Tensor b, Tensor c) {
    checkAll(name, in -> f.apply(in[0], in[1], in[2]), a, b, c);
  }

  /** Checks the gradient of {@code f} with respect to every input. */
  static void checkAll(String name, Fn f, Tensor... inputs) {
    for (int i = 0; i < inputs.length; i++) {
      assertEquals(DType.FLOAT64, inputs[i].dtype(), name + ": input " + i + " must be float64");
    }
    Tensor[] leaves = new Tensor[inputs.length];
    for (int i = 0; i < inputs.length; i++) {
      leaves[i] = inputs[i].detach().requiresGrad(true);
    }
    Tensor out = f.apply(leaves);
    assertEquals(DType.FLOAT64, out.dtype(), name + ": the output must be float64");
    assertTrue(out.requiresGrad(), name + ": the output does not require grad");
    Tensor w = Tensor.randn(out.shape(), DType.FLOAT64, out.device(), new Generator(WEIGHT_SEED));
    out.mul(w).sum().backward();
    double[] weights = w.toDoubleArray();
    Device outDevice = out.device();
    Shape outShape = out.shape();
    for (int i = 0; i < inputs.length; i++) {
      Tensor g = leaves[i].grad();
      assertNotNull(g, name + ": no gradient reached input " + i);
      assertEquals(inputs[i].shape(), g.shape(), name + ": shape of the gradient of input " + i);
      assertEquals(DType.FLOAT64, g.dtype(), name + ": dtype of the gradient of input " + i);
      assertEquals(inputs[i].device(), g.device(), name + ": device of the gradient of input " + i);
      double[] analytic = g.toDoubleArray();
      double[] numeric = numerical(name, f, inputs, i, weights, outDevice, outShape);
      compare(name, i, inputs[i].shape(), analytic, numeric);
    }
  }

  /**
   * The central-difference gradient of {@code sum(f(x) * w)} with respect to input {@code which}.
   */
  private static double[] numerical(
      String name,
      Fn f,
      Tensor[] inputs,
      int which,
      double[] weights,
      Device outDevice,
      Shape outShape) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor[] args = new Tensor[inputs.length];
      for (int i = 0; i < inputs.length; i++) {
        args[i] = inputs[i].detach();
      }
      Device device = inputs[which].device();
      Tensor host = inputs[which].detach().cpu().clone();
      double[] base = host.toDoubleArray();
      double[] grad = new double[base.length];
      for (int k = 0; k < base.length; k++) {
        Tensor element = host.dim() == 0 ? host : host.view(-1).select(0, k);
        element.fill(base[k] + EPS);
        args[which] = host.to(device);
        double plus = weighted(name, f.apply(args), weights, outDevice, outShape);
        element.fill(base[k] - EPS);
        args[which] = host.to(device);
        double minus = weighted(name, f.apply(args), weights, outDevice, outShape);
        element.fill(base[k]);
        grad[k] = (plus - minus) / (2 * EPS);
      }
      return grad;
    }
  }

  private static double weighted(
      String name, Tensor out, double[] weights, Device device, Shape shape) {
    assertEquals(device, out.device(), name + ": the output moved device between evaluations");
    assertEquals(shape, out.shape(), name + ": the output changed shape between evaluations");
    double[] values = out.toDoubleArray();
    double s = 0;
    for (int i = 0; i < values.length; i++) {
      s += values[i] * weights[i];
    }
    return s;
  }

  private static void compare(
      String name, int input, Shape shape, double[] analytic, double[] numeric) {
    double worst = 0;
    int at = -1;
    for (int k = 0; k < analytic.length; k++) {
      double err = Math.abs(analytic[k] - numeric[k]) / Math.max(1, Math.abs(numeric[k]));
      if (Double.isNaN(err)) {
        err = Double.POSITIVE_INFINITY;
      }
      if (err > worst || at < 0) {
        worst = err;
        at = k;
      }
    }
    if (worst >= TOLERANCE) {
      fail(
          name
              + ": the gradient of input "
              + input
              + " (shape "
              + shape
              + ") differs from finite differences"
              + " by "
              + worst
              + " at flat index "
              + at
              + ": analytic "
              + analytic[at]
              + ", numerical "
              + numeric[at]
              + "\nanalytic:  "
              + java.util.Arrays.toString(analytic)
              + "\nnumerical: "
              + java.util.Arrays.toString(numeric));
    }
  }

  // ---------------------------------------------------------------- inputs

  /** Standard-normal float64 values on {@code device}. */
  static Tensor randn(Random rng, Device device, long... shape) {
    double[] v = new double[Math.toIntExact(Shape.of(shape).numel())];
    for (int i = 0; i < v.length; i++) {
      v[i] = rng.nextGaussian();
    }
    return Tensor.of(v, Shape.of(shape), device);
  }

  /** float64 values uniform on {@code [lo, hi)} on {@code device}. */
  static Tensor uniform(Random rng, double lo, double hi, Device device, long... shape) {
    double[] v = new double[Math.toIntExact(Shape.of(shape).numel())];
    for (int i = 0; i < v.length; i++) {
      v[i] = lo + (hi - lo) * rng.nextDouble();
    }
    return Tensor.of(v, Shape.of(shape), device);
  }

  /** float64 values of either sign with magnitude in {@code [0.2, 2)}: away from 0. */
  static Tensor awayFromZero(Random rng, Device device, long... shape) {
    double[] v = new double[Math.toIntExact(Shape.of(shape).numel())];
    for (int i = 0; i < v.length; i++) {
      double m = 0.2 + 1.8 * rng.nextDouble();
      v[i] = rng.nextBoolean() ? m : -m;
    }
    return Tensor.of(v, Shape.of(shape), device);
  }

  /**
   * float64 values, pairwise at least 0.1 apart and away from 0, in random order: no ties for max
   * and min.
   */
  static Tensor distinct(Random rng, Device device, long... shape) {
    int n = Math.toIntExact(Shape.of(shape).numel());
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = 0.15 * (i - n / 2) + 0.05 + 0.04 * rng.nextDouble();
    }
    for (int i = n - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      double t = v[i];
      v[i] = v[j];
      v[j] = t;
    }
    return Tensor.of(v, Shape.of(shape), device);
  }
}
