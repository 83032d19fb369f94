package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The semantics of autograd: how backward starts and fails, accumulation, graph sharing, gradient
 * mode, freed graphs, in-place checks, leaf gradients and parameters, on the CPU and on an emulated
 * {@code cuda:0}.
 */
class AutogradTest {
  private static final String DEVICES = "dev.ondevice.TestDevices#all";
  private static final double TOL = 1e-12;

  private static Tensor doubles(Device device, double... values) {
    return Tensor.of(values, Shape.of(values.length), device);
  }

  private static Tensor leaf(Device device, double... values) {
    return doubles(device, values).requiresGrad(true);
  }

  private static Device other(Device device) {
    return device.isCpu() ? Device.cuda(0) : Device.cpu();
  }

  private static double[] scaled(double[] values, double factor) {
    double[] out = new double[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i] * factor;
    }
    return out;
  }

  // ---------------------------------------------------------------- starting backward

  @ParameterizedTest
  @MethodSource(DEVICES)
  void backwardFromAScalar(Device d) {
    Tensor x = leaf(d, 1, -2, 3);
    Tensor y = x.mul(x).sum();
    assertEquals(Shape.scalar(), y.shape());
    assertTrue(y.requiresGrad());
    assertFalse(y.isLeaf());
    assertEquals("sum", y.gradFnName());
    assertTrue(x.isLeaf());
    assertNull(x.gradFnName());
    assertNull(x.grad());
    y.backward();
    assertEquals(d, x.grad().device());
    assertEquals(DType.FLOAT64, x.grad().dtype());
    assertArrayEquals(new double[] {2, -4, 6}, x.grad().toDoubleArray(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void backwardFromAOneElementTensorThatIsNot0Dim(Device d) {
    Tensor x = leaf(d, 1, 2);
    x.mul(3.0).sum(0, true).backward();
    assertArrayEquals(new double[] {3, 3}, x.grad().toDoubleArray(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void backwardWithAGradientFromANonScalar(Device d) {
    Tensor x = leaf(d, 1, 2, 3);
    Tensor y = x.mul(3.0).add(1.0);
    y.backward(doubles(d, 1, 10, 100));
    assertArrayEquals(new double[] {3, 30, 300}, x.grad().toDoubleArray(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void backwardGradientOfAnotherDtypeIsConverted(Device d) {
    Tensor x = leaf(d, 1, 2);
    x.square().backward(Tensor.of(new float[] {1f, 0.5f}, Shape.of(2), d));
    assertEquals(DType.FLOAT64, x.grad().dtype());
    assertArrayEquals(new double[] {2, 2}, x.grad().toDoubleArray(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void backwardFromALeaf(Device d) {
    Tensor x = leaf(d, 1, 2);
    Tensor g = doubles(d, 5, 6);
    x.backward(g);
    assertArrayEquals(new double[] {5, 6}, x.grad().toDoubleArray(), TOL);
    x.backward(g);
    assertArrayEquals(new double[] {10, 12}, x.grad().toDoubleArray(), TOL);
    Tensor s = Tensor.full(Shape.scalar(), 2.0, DType.FLOAT64, d).requiresGrad(true);
    s.backward();
    s.backward();
    assertEquals(2.0, s.grad().item(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void backwardOfA0DimResultAcceptsA0DimCpuGradient(Device d) {
    Tensor x = leaf(d, 1, 2, 3);
    x.mul(x).sum().backward(Tensor.full(Shape.scalar(), 0.5, DType.FLOAT64, Device.cpu()));
    assertEquals(d, x.grad().device());
    assertArrayEquals(new double[] {1, 2, 3}, x.grad().toDoubleArray(), TOL);
    Tensor s = Tensor.full(Shape.scalar(), 2.0, DType.FLOAT64, d).requiresGrad(true);
    s.backward(Tensor.full(Shape.scalar(), 3.0, DType.FLOAT64, Device.cpu()));
    assertEquals(d, s.grad().device());
    assertEquals(3.0, s.grad().item(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void backwardOnANonScalarWithoutAGradientThrows(Device d) {
    Tensor x = leaf(d, 1, 2, 3);
    Tensor y = x.mul(2.0);
    IllegalStateException e = assertThrows(IllegalStateException.class, y::backward);
    assertTrue(e.getMessage().contains("one-element"), e.getMessage());
    assertTrue(e.getMessage().contains("[3]"), e.getMessage());
    assertTrue(e.getMessage().contains("backward(gradient)"), e.getMessage());
    assertNull(x.grad());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void backwardWithAGradientOfTheWrongShapeThrows(Device d) {
    Tensor y = leaf(d, 1, 2, 3).mul(2.0);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> y.backward(doubles(d, 1, 2)));
    assertTrue(e.getMessage().contains("[2]") && e.getMessage().contains("[3]"), e.getMessage());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void backwardWithAGradientOnAnotherDeviceThrows(Device d) {
    Tensor y = leaf(d, 1, 2, 3).mul(2.0);
    assertThrows(DeviceMismatchException.class, () -> y.backward(doubles(other(d), 1, 1, 1)));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void backwardOnATensorThatDoesNotRequireGradThrows(Device d) {
    Tensor x = doubles(d, 1, 2);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> x.sum().backward());
    assertTrue(e.getMessage().contains("does not require grad"), e.getMessage());
    assertTrue(e.getMessage().contains("requiresGrad(true)"), e.getMessage());
    Tensor w = leaf(d, 1, 2);
    Tensor y;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      y = w.mul(w).sum();
    }
    IllegalStateException inNoGrad = assertThrows(IllegalStateException.class, y::backward);
    assertTrue(inNoGrad.getMessage().contains("does not require grad"), inNoGrad.getMessage());
    assertNull(w.grad());
  }

  // ---------------------------------------------------------------- accumulation and graph shape

  @ParameterizedTest
  @MethodSource(DEVICES)
  void gradientsAccumulateAcrossBackwardCalls(Device d) {
    Tensor x = leaf(d, 1, 2);
    x.mul(2.0).sum().backward();
    assertArrayEquals(new double[] {2, 2}, x.grad().toDoubleArray(), TOL);
    x.mul(x).sum().backward();
    assertArrayEquals(new double[] {4, 6}, x.grad().toDoubleArray(), TOL);
    x.setGrad(null);
    x.mul(5.0).sum().backward();
    assertArrayEquals(new double[] {5, 5}, x.grad().toDoubleArray(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void theSameTensorUsedTwiceAccumulates(Device d) {
    Tensor x = leaf(d, 1.5, -2);
    x.mul(x).sum().backward();
    assertArrayEquals(new double[] {3, -4}, x.grad().toDoubleArray(), TOL);
    Tensor y = leaf(d, 1, 2);
    y.add(y).add(y).sum().backward();
    assertArrayEquals(new double[] {3, 3}, y.grad().toDoubleArray(), TOL);
    Tensor z = leaf(d, 2, 3);
    Tensor h = z.mul(2.0);
    h.mul(h).sum().backward();
    assertArrayEquals(new double[] {16, 24}, z.grad().toDoubleArray(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void aDiamondGraphSumsBothPaths(Device d) {
    Tensor x = leaf(d, 0.5, -1);
    Tensor h = x.exp();
    Tensor left = h.mul(2.0);
    Tensor right = h.mul(3.0).sin();
    left.add(right).sum().backward();
    double[] xs = {0.5, -1};
    double[] expected = new double[2];
    for (int i = 0; i < 2; i++) {
      double e = Math.exp(xs[i]);
      expected[i] = 2 * e + Math.cos(3 * e) * 3 * e;
    }
    assertArrayEquals(expected, x.grad().toDoubleArray(), 1e-12);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void onlyLeavesThatRequireGradGetGradients(Device d) {
    Tensor x = leaf(d, 1, 2);
    Tensor c = doubles(d, 3, 4);
    Tensor y = x.mul(c).sum();
    y.backward();
    assertArrayEquals(new double[] {3, 4}, x.grad().toDoubleArray(), TOL);
    assertNull(c.grad());
    assertFalse(c.requiresGrad());
    assertFalse(x.gt(1.0).requiresGrad(), "comparisons are not differentiable");
    assertFalse(x.argmax().requiresGrad(), "positions are not differentiable");
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void detachStopsGradients(Device d) {
    Tensor x = leaf(d, 2, 3);
    Tensor frozen = x.detach();
    assertFalse(frozen.requiresGrad());
    assertTrue(frozen.isLeaf());
    x.mul(frozen).sum().backward();
    assertArrayEquals(new double[] {2, 3}, x.grad().toDoubleArray(), TOL);
    Tensor h = x.exp();
    Tensor y = h.detach().mul(x).sum();
    x.setGrad(null);
    y.backward();
    assertArrayEquals(new double[] {Math.exp(2), Math.exp(3)}, x.grad().toDoubleArray(), 1e-12);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      frozen.fill(7);
    }
    assertArrayEquals(
        new double[] {7, 7}, x.toDoubleArray(), "detach shares memory, as in PyTorch");
  }

  // ---------------------------------------------------------------- gradient mode

  @ParameterizedTest
  @MethodSource(DEVICES)
  void noGradRecordsNothingAndRestoresTheMode(Device d) {
    Tensor x = leaf(d, 1, 2);
    assertTrue(Autograd.isGradEnabled());
    Tensor y;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      assertFalse(Autograd.isGradEnabled());
      y = x.mul(2.0).exp().sum();
      assertFalse(y.requiresGrad());
      assertTrue(y.isLeaf());
      assertNull(y.gradFnName());
    }
    assertTrue(Autograd.isGradEnabled());
    assertTrue(x.mul(2.0).requiresGrad());
  }

  @Test
  void noGradScopesNest() {
    Tensor x = leaf(Device.cpu(), 1, 2);
    try (Autograd.Scope outer = Autograd.noGrad()) {
      try (Autograd.Scope inner = Autograd.noGrad()) {
        assertFalse(Autograd.isGradEnabled());
      }
      assertFalse(Autograd.isGradEnabled(), "closing the inner scope keeps the outer one's mode");
      try (Autograd.Scope enabled = Autograd.enableGrad()) {
        assertTrue(Autograd.isGradEnabled());
        assertTrue(x.mul(2.0).requiresGrad());
      }
      assertFalse(Autograd.isGradEnabled());
      assertFalse(x.mul(2.0).requiresGrad());
      outer.close();
      assertTrue(Autograd.isGradEnabled());
      outer.close();
      assertTrue(Autograd.isGradEnabled(), "closing twice changes nothing");
    }
    assertTrue(Autograd.isGradEnabled());
  }

  @Test
  void gradientModeIsPerThread() throws InterruptedException {
    AtomicBoolean seen = new AtomicBoolean();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Thread t = new Thread(() -> seen.set(Autograd.isGradEnabled()));
      t.start();
      t.join();
    }
    assertTrue(seen.get(), "noGrad on one thread does not switch gradients off on another");
  }

  // ---------------------------------------------------------------- freed graphs and in-place
  // checks

  @ParameterizedTest
  @MethodSource(DEVICES)
  void aSecondBackwardThroughAFreedGraphThrows(Device d) {
    Tensor x = leaf(d, 1, 2);
    Tensor y = x.exp().sum();
    y.backward();
    IllegalStateException e = assertThrows(IllegalStateException.class, y::backward);
    assertTrue(e.getMessage().contains("second time"), e.getMessage());
    assertTrue(e.getMessage().contains("backward(true)"), e.getMessage());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void backwardTrueKeepsTheGraph(Device d) {
    Tensor x = leaf(d, 1, 2);
    Tensor y = x.exp().mul(x).sum();
    y.backward(true);
    y.backward(true);
    y.backward();
    double[] once = {2 * Math.exp(1), 3 * Math.exp(2)};
    assertArrayEquals(scaled(once, 3), x.grad().toDoubleArray(), 1e-12);
    assertThrows(IllegalStateException.class, y::backward);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void aGraphSharedByTwoOutputsNeedsBackwardTrue(Device d) {
    Tensor x = leaf(d, 1, 2);
    Tensor h = x.exp();
    Tensor a = h.sum();
    Tensor b = h.mul(2.0).sum();
    a.backward();
    IllegalStateException e = assertThrows(IllegalStateException.class, b::backward);
    assertTrue(e.getMessage().contains("backward(true)"), e.getMessage());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void modifyingASavedTensorInPlaceBeforeBackwardThrows(Device d) {
    Tensor x = leaf(d, 1, 2);
    Tensor y = x.exp().mul(x).sum();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      x.muli(2.0);
    }
    IllegalStateException e = assertThrows(IllegalStateException.class, y::backward);
    assertTrue(e.getMessage().contains("modified by an in-place operation"), e.getMessage());

    Tensor z = leaf(d, 1, 2);
    Tensor h = z.mul(2.0);
    Tensor s = h.sin().sum();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      h.view(2, 1).addi(1.0);
    }
    IllegalStateException viaView = assertThrows(IllegalStateException.class, s::backward);
    assertTrue(viaView.getMessage().contains("in-place"), viaView.getMessage());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void modifyingAnOutputThatBackwardReadsThrows(Device d) {
    assertModifiedOutputThrows("exp", leaf(d, 1, 2).exp());
    assertModifiedOutputThrows("sigmoid", leaf(d, 1, 2).sigmoid());
    assertModifiedOutputThrows("pow", leaf(d, 1, 2).pow(leaf(d, 2, 3)));
    assertModifiedOutputThrows("rdiv", leaf(d, 1, 2).rdiv(1.0));
    assertModifiedOutputThrows("softmax", leaf(d, 1, 2).softmax(0));
    assertModifiedOutputThrows("max", leaf(d, 1, 2).max());
  }

  private static void assertModifiedOutputThrows(String op, Tensor y) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      y.muli(2.0);
    }
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> y.sum().backward(), op);
    assertTrue(e.getMessage().contains("in-place"), op + ": " + e.getMessage());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void modifyingTheIndicesOfMaxOverADimBeforeBackwardThrows(Device d) {
    ValuesAndIndices m =
        Tensor.of(new double[] {1, 5, 3, 2}, Shape.of(2, 2), d).requiresGrad(true).max(1, false);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      m.indices().fill(0);
    }
    assertThrows(IllegalStateException.class, () -> m.values().sum().backward());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void modifyingTheConditionOfWhereBeforeBackwardThrows(Device d) {
    Tensor cond = Tensor.of(true, false).to(d);
    Tensor y = Tensor.where(cond, leaf(d, 1, 2), leaf(d, 3, 4));
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      cond.fill(1);
    }
    assertThrows(IllegalStateException.class, () -> y.sum().backward());
  }

  /**
   * As in PyTorch, only what backward reads is checked: add, sum, mul by a number and exp's input
   * are not.
   */
  @ParameterizedTest
  @MethodSource(DEVICES)
  void inPlaceChangesToTensorsBackwardDoesNotReadAreAllowed(Device d) {
    Tensor a = leaf(d, 1, 2);
    Tensor b = leaf(d, 3, 4);
    Tensor y = a.add(b).sub(b).mul(3.0).add(1.0).sum();
    Tensor e = a.exp();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      a.muli(2.0);
      b.addi(1.0);
    }
    y.backward();
    assertArrayEquals(new double[] {3, 3}, a.grad().toDoubleArray(), TOL);
    assertArrayEquals(new double[] {0, 0}, b.grad().toDoubleArray(), TOL);
    a.setGrad(null);
    e.sum().backward();
    assertArrayEquals(
        new double[] {Math.exp(1), Math.exp(2)},
        a.grad().toDoubleArray(),
        1e-12,
        "exp's gradient reads its output, which did not change");
  }

  /**
   * As in PyTorch, a product saves an operand only for the gradient of the other: data changed in
   * place under a parameter that alone needs a gradient does not break backward, and the same
   * change under a parameter the other operand's gradient reads does.
   */
  @ParameterizedTest
  @MethodSource(DEVICES)
  void productsSaveAnOperandOnlyForTheOtherOperandsGradient(Device d) {
    Tensor x = Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, Shape.of(2, 3), d);
    Tensor w = leaf(d, 1, 1, 1);
    Tensor m = leaf(d, 1, 2, 3, 4, 5, 6).reshape(3, 2).detach().requiresGrad(true);
    Tensor byMul = x.mul(w).sum();
    Tensor byDiv = x.div(w).sum();
    Tensor byMatmul = x.matmul(m).sum();
    dev.ondevice.nn.Linear linear = new dev.ondevice.nn.Linear(3, 2, d);
    Tensor byLinear = linear.forward(x).sum();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      w.subi(0.5);
      m.muli(2.0);
      linear.weight().subi(0.5);
    }
    byMul.backward();
    assertArrayEquals(new double[] {5, 7, 9}, w.grad().toDoubleArray(), TOL);
    w.setGrad(null);
    assertThrows(IllegalStateException.class, byDiv::backward, "div's gradient for w reads w");
    byMatmul.backward();
    assertArrayEquals(new double[] {5, 5, 7, 7, 9, 9}, m.grad().toDoubleArray(), TOL);
    byLinear.backward();
    assertArrayEquals(
        new double[] {5, 7, 9, 5, 7, 9},
        linear.weight().grad().to(DType.FLOAT64).toDoubleArray(),
        1e-5);
    Tensor both = x.detach().requiresGrad(true).mul(w);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      w.addi(1.0);
    }
    assertThrows(IllegalStateException.class, () -> both.sum().backward(), "x's gradient reads w");
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void modifyingTheOutputOfDivKeepsItsGradientRight(Device d) {
    Tensor a = leaf(d, 1, 2);
    Tensor b = leaf(d, 4, -5);
    Tensor y = a.div(b);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      y.muli(10.0);
    }
    y.sum().backward();
    assertArrayEquals(new double[] {0.25, -0.2}, a.grad().toDoubleArray(), TOL);
    assertArrayEquals(new double[] {-1.0 / 16, -2.0 / 25}, b.grad().toDoubleArray(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void inPlaceOnALeafThatRequiresGradOutsideNoGradThrows(Device d) {
    Tensor x = leaf(d, 1, 2);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> x.addi(1.0));
    assertTrue(e.getMessage().contains("noGrad"), e.getMessage());
  }

  // ---------------------------------------------------------------- requiresGrad and leaves

  @ParameterizedTest
  @MethodSource(DEVICES)
  void requiresGradOnANonFloatingTensorThrows(Device d) {
    Tensor i = Tensor.of(new long[] {1, 2}, Shape.of(2), d);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> i.requiresGrad(true));
    assertTrue(
        e.getMessage().contains("floating-point") && e.getMessage().contains("int64"),
        e.getMessage());
    assertFalse(i.requiresGrad());
    assertSame(i, i.requiresGrad(false));
    Tensor b = Tensor.of(true, false).to(d);
    assertThrows(IllegalArgumentException.class, () -> b.requiresGrad(true));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void requiresGradOnANonLeafThrows(Device d) {
    Tensor y = leaf(d, 1, 2).exp();
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> y.requiresGrad(false));
    assertTrue(
        e.getMessage().contains("leaf") && e.getMessage().contains("detach()"), e.getMessage());
    assertTrue(y.detach().requiresGrad(true).isLeaf());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void leafGradsAreContiguousAndNotShared(Device d) {
    Tensor a = leaf(d, 1, 2, 3);
    Tensor b = leaf(d, 4, 5, 6);
    a.add(b).sum().backward();
    assertTrue(a.grad().isContiguous());
    assertTrue(b.grad().isContiguous());
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      a.grad().addi(10.0);
    }
    assertArrayEquals(new double[] {11, 11, 11}, a.grad().toDoubleArray(), TOL);
    assertArrayEquals(new double[] {1, 1, 1}, b.grad().toDoubleArray(), TOL);

    Tensor c = leaf(d, 1, 2, 3);
    Tensor e = leaf(d, 4, 5, 6);
    c.add(e).backward(doubles(d, 1, 2, 3));
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      c.grad().fill(0);
    }
    assertArrayEquals(new double[] {1, 2, 3}, e.grad().toDoubleArray(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void leafGradsThroughViewsAreNotShared(Device d) {
    Tensor a = Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, Shape.of(2, 3), d).requiresGrad(true);
    Tensor b = Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, Shape.of(2, 3), d).requiresGrad(true);
    a.view(6).add(b.view(6)).backward(doubles(d, 1, 1, 1, 1, 1, 1));
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      a.grad().fill(-1);
    }
    assertArrayEquals(new double[] {1, 1, 1, 1, 1, 1}, b.grad().toDoubleArray(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void leafGradsDoNotAliasTheGivenGradient(Device d) {
    Tensor g = doubles(d, 1, 2, 3);
    Tensor x = leaf(d, 0, 0, 0);
    x.backward(g);
    Tensor y = leaf(d, 0, 0, 0);
    y.mul(1.0).add(0.0).backward(g);
    Tensor z = leaf(d, 0, 0, 0);
    z.view(3).backward(g);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      x.grad().fill(0);
      y.grad().fill(0);
      z.grad().fill(0);
    }
    assertArrayEquals(new double[] {1, 2, 3}, g.toDoubleArray(), TOL);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void leafGradsOfBroadcastOpsAreContiguous(Device d) {
    Tensor a = leaf(d, 1, 2, 3);
    a.expand(4, 3).sum().backward();
    assertTrue(a.grad().isContiguous());
    assertArrayEquals(new double[] {4, 4, 4}, a.grad().toDoubleArray(), TOL);
    Tensor b = leaf(d, 1, 2);
    Tensor c = leaf(d, 1, 2);
    Tensor.cat(List.of(b, c), 0).sum().backward();
    assertTrue(b.grad().isContiguous());
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      b.grad().fill(0);
    }
    assertArrayEquals(new double[] {1, 1}, c.grad().toDoubleArray(), TOL);
  }

  // ---------------------------------------------------------------- setGrad

  @ParameterizedTest
  @MethodSource(DEVICES)
  void setGradValidatesShapeDtypeAndDevice(Device d) {
    Tensor x = leaf(d, 1, 2);
    IllegalArgumentException shape =
        assertThrows(IllegalArgumentException.class, () -> x.setGrad(doubles(d, 1, 2, 3)));
    assertTrue(shape.getMessage().contains("setGrad"), shape.getMessage());
    IllegalArgumentException dtype =
        assertThrows(
            IllegalArgumentException.class,
            () -> x.setGrad(Tensor.of(new float[] {1f, 2f}, Shape.of(2), d)));
    assertTrue(dtype.getMessage().contains("float32"), dtype.getMessage());
    IllegalArgumentException device =
        assertThrows(IllegalArgumentException.class, () -> x.setGrad(doubles(other(d), 1, 2)));
    assertTrue(device.getMessage().contains(other(d).toString()), device.getMessage());
    assertNull(x.grad());

    Tensor g = doubles(d, 10, 20);
    x.setGrad(g);
    assertSame(g, x.grad());
    x.mul(3.0).sum().backward();
    assertArrayEquals(new double[] {13, 23}, x.grad().toDoubleArray(), TOL);
    x.setGrad(null);
    assertNull(x.grad());
  }

  // ---------------------------------------------------------------- parameters

  @ParameterizedTest
  @MethodSource(DEVICES)
  void aParameterIsALeafThatRequiresGrad(Device d) {
    Parameter p = new Parameter(doubles(d, 1, 2));
    assertTrue(p.isLeaf());
    assertTrue(p.requiresGrad());
    assertNull(p.grad());
    assertEquals(d, p.device());
    p.mul(p).sum().backward();
    assertArrayEquals(new double[] {2, 4}, p.grad().toDoubleArray(), TOL);
    Tensor computed = leaf(d, 1, 2).exp();
    Parameter q = new Parameter(computed);
    assertTrue(q.isLeaf());
    assertThrows(
        IllegalArgumentException.class,
        () -> new Parameter(Tensor.of(new long[] {1}, Shape.of(1), d)));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void parameterMoveToMovesDataAndGradInPlace(Device d) {
    Device o = other(d);
    Parameter p = new Parameter(doubles(d, 1, 2, 3));
    p.mul(p).sum().backward();
    Tensor beforeGrad = p.grad();
    p.moveTo(o);
    assertEquals(o, p.device());
    assertArrayEquals(new double[] {1, 2, 3}, p.toDoubleArray(), TOL);
    assertTrue(p.isLeaf());
    assertTrue(p.requiresGrad());
    assertEquals(o, p.grad().device());
    assertArrayEquals(new double[] {2, 4, 6}, p.grad().toDoubleArray(), TOL);
    assertNotSame(beforeGrad, p.grad());

    p.mul(3.0).sum().backward();
    assertEquals(o, p.grad().device());
    assertArrayEquals(new double[] {5, 7, 9}, p.grad().toDoubleArray(), TOL);

    Tensor gradThere = p.grad();
    p.moveTo(o);
    assertSame(gradThere, p.grad(), "moving to the device it is on is a no-op");

    p.moveTo(d);
    assertEquals(d, p.device());
    assertEquals(d, p.grad().device());
    assertArrayEquals(new double[] {5, 7, 9}, p.grad().toDoubleArray(), TOL);
    p.exp().sum().backward();
    assertArrayEquals(
        new double[] {5 + Math.exp(1), 7 + Math.exp(2), 9 + Math.exp(3)},
        p.grad().toDoubleArray(),
        1e-12);
  }

  @Test
  void parameterMoveToWithoutAGrad() {
    Parameter p = new Parameter(doubles(Device.cpu(), 1, 2));
    p.moveTo(Device.cuda(0));
    assertEquals(Device.cuda(0), p.device());
    assertNull(p.grad());
    p.sum().backward();
    assertEquals(Device.cuda(0), p.grad().device());
  }
}
