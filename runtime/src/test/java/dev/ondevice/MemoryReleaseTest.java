package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.internal.backend.Storage;
import dev.ondevice.optim.Sgd;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Memory freed when it dies: the backward pass frees what it made as soon as its last use has run,
 * zeroGrad frees the gradients backward made, the allocator hands a freed block to the next request
 * of its class at once, and a tensor whose memory was freed throws instead of reading it.
 *
 * <p>The reuse tests use size classes (7 and 9 MiB) that no other test allocates, so that no other
 * test's garbage lands on top of the allocator's stack in between.
 */
class MemoryReleaseTest {
  private static final Shape SEVEN_MIB = Shape.of(896, 2048);
  private static final Shape NINE_MIB = Shape.of(1152, 2048);

  private static ByteBuffer block(Tensor t) {
    return t.data.host().bytes();
  }

  @Test
  void backwardFreesEverythingItMadeButTheLeafGradientsAndTheGradientsAreExact() {
    double[][] xs = {{0.5, -1.0, 2.0, 0.25}, {-0.75, 1.5, 0.5, -2.0}, {1.0, 0.0, -0.5, 3.0}};
    double[][] ws = new double[4][5];
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 5; j++) {
        ws[i][j] = Math.sin(3 * i + j) * 0.8;
      }
    }
    Tensor x = Tensor.of(xs).requiresGrad(true);
    Tensor w = Tensor.of(ws).requiresGrad(true);
    Tensor a = x.matmul(w).relu();
    Tensor b = a.add(a); // two edges into one node: the engine sums them
    Tensor loss = b.mul(b).sum();

    List<Storage> made = new ArrayList<>();
    try (AllocationLog log = AllocationLog.open()) {
      loss.backward();
      made.addAll(log.since(0));
    }

    Set<Storage> kept = Collections.newSetFromMap(new IdentityHashMap<>());
    kept.add(x.grad().data.storage());
    kept.add(w.grad().data.storage());
    int freed = 0;
    for (Storage s : made) {
      if (kept.contains(s)) {
        assertFalse(s.isFreed(), "a leaf gradient must stay");
      } else {
        assertTrue(s.isFreed(), "intermediate gradient of " + s.byteSize() + " bytes not freed");
        freed++;
      }
    }
    assertTrue(freed >= 4, "freed " + freed);

    // loss = 4 * sum(relu(x w)^2): dL/dh = 8 relu(h), dL/dw = x^T dh, dL/dx = dh w^T
    double[][] dh = new double[3][5];
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 5; j++) {
        double h = 0;
        for (int k = 0; k < 4; k++) {
          h += xs[i][k] * ws[k][j];
        }
        dh[i][j] = 8 * Math.max(h, 0);
      }
    }
    double[] gw = new double[20];
    double[] gx = new double[12];
    for (int i = 0; i < 3; i++) {
      for (int k = 0; k < 4; k++) {
        for (int j = 0; j < 5; j++) {
          gw[k * 5 + j] += xs[i][k] * dh[i][j];
          gx[i * 4 + k] += dh[i][j] * ws[k][j];
        }
      }
    }
    assertArrayEquals(gw, w.grad().toDoubleArray(), 1e-12);
    assertArrayEquals(gx, x.grad().toDoubleArray(), 1e-12);
  }

  @Test
  void aRetainedGraphGivesTheSameGradientsAgain() {
    Tensor x = Tensor.randn(Shape.of(2, 3, 6, 6), DType.FLOAT64).requiresGrad(true);
    Tensor w = Tensor.randn(Shape.of(4, 3, 3, 3), DType.FLOAT64).requiresGrad(true);
    Tensor bias = Tensor.randn(Shape.of(4), DType.FLOAT64).requiresGrad(true);
    Tensor out = Convolution.conv2d(x, w, bias, 1, 1).relu();
    Tensor loss = out.mul(out).sum();
    loss.backward(true);
    double[] gx = x.grad().toDoubleArray();
    double[] gw = w.grad().toDoubleArray();
    loss.backward(true);
    assertArrayEquals(times(2, gx), x.grad().toDoubleArray(), 1e-9);
    assertArrayEquals(times(2, gw), w.grad().toDoubleArray(), 1e-9);
    loss.backward();
    assertArrayEquals(times(3, gw), w.grad().toDoubleArray(), 1e-9);
    IllegalStateException e = assertThrows(IllegalStateException.class, loss::backward);
    assertTrue(e.getMessage().contains("backward(true)"), e.getMessage());
  }

  @Test
  void convolutionFreesItsUnfoldedInputOnceItsGradientHasRun() {
    Tensor x = Tensor.randn(Shape.of(2, 3, 5, 5), DType.FLOAT64);
    Tensor w = Tensor.randn(Shape.of(4, 3, 3, 3), DType.FLOAT64).requiresGrad(true);
    long columnBytes = 3L * 9 * 2 * 25 * 8;
    Storage columns;
    Tensor loss;
    try (AllocationLog log = AllocationLog.open()) {
      loss = Convolution.conv2d(x, w, null, 1, 1).sum();
      columns =
          log.since(0).stream().filter(s -> s.byteSize() == columnBytes).findFirst().orElseThrow();
    }
    assertFalse(columns.isFreed(), "the backward function still needs the columns");
    loss.backward();
    assertTrue(columns.isFreed());
    try (Autograd.Scope ignored = Autograd.noGrad();
        AllocationLog log = AllocationLog.open()) {
      Convolution.conv2d(x, w, null, 1, 1);
      assertTrue(
          log.since(0).stream().filter(s -> s.byteSize() == columnBytes).allMatch(Storage::isFreed),
          "without a graph, the columns die with the op");
    }
  }

  @Test
  void zeroGradFreesTheGradientBackwardMadeAndTheNextBackwardGetsTheSameBlock() {
    Parameter p = new Parameter(Tensor.zeros(SEVEN_MIB));
    Sgd sgd = new Sgd(List.of(p), 0.1);
    p.sum().backward();
    Tensor old = p.grad();
    ByteBuffer oldBlock = block(old);
    assertEquals((double) SEVEN_MIB.numel(), old.sum().item(), 0);

    sgd.zeroGrad();

    assertNull(p.grad());
    IllegalStateException e = assertThrows(IllegalStateException.class, old::sum);
    assertTrue(
        e.getMessage().contains("zeroGrad()") && e.getMessage().contains("clone()"),
        e.getMessage());
    p.sum().mul(3).backward(); // no 7 MiB tensor in the forward pass
    assertSame(oldBlock, block(p.grad()), "the freed block serves the next request of its class");
    assertEquals(3.0 * SEVEN_MIB.numel(), p.grad().sum().item(), 0);
  }

  @Test
  void zeroGradLeavesAGradientTheCallerSetAlone() {
    Parameter p = new Parameter(Tensor.zeros(Shape.of(3)));
    Tensor mine = Tensor.of(1f, 2f, 3f);
    p.setGrad(mine);
    new Sgd(List.of(p), 0.1).zeroGrad();
    assertNull(p.grad());
    assertArrayEquals(new float[] {1, 2, 3}, mine.toFloatArray());
  }

  @Test
  void aFreedTensorThrowsInsteadOfReadingTheMemoryItsNextOwnerWrote() {
    Tensor t = Tensor.full(NINE_MIB, 1);
    Tensor view = t.view(-1);
    ByteBuffer block = block(t);
    t.data.storage().free("by this test, which says how to keep it");

    Tensor next = Tensor.full(NINE_MIB, 2);
    assertSame(block, block(next), "the freed block is handed out at once");
    IllegalStateException e = assertThrows(IllegalStateException.class, t::sum);
    assertEquals(
        "This tensor's memory (9.00 MiB on cpu) was freed by this test, which says how to keep it, and can"
            + " no longer be read or written",
        e.getMessage());
    assertThrows(IllegalStateException.class, () -> view.add(1));
    assertThrows(IllegalStateException.class, () -> next.view(-1).copyFrom(view));
    assertThrows(IllegalStateException.class, () -> t.fill(3));
    assertEquals(2.0 * NINE_MIB.numel(), next.sum().item(), 0);
  }

  /**
   * On every device, work queued before a free still reads the memory, and work after it fails with
   * the free's message: on the CPU at once, on an emulated device (whose stream runs the free in
   * order) at the next synchronisation, on the CUDA backend when the kernel is queued.
   */
  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void workQueuedBeforeAFreeReadsTheMemoryAndWorkAfterItFails(Device device) {
    Tensor x = Tensor.full(Shape.of(1000), 1.5, device);
    Tensor doubled = x.mul(2);
    x.data.storage().free("by this test");
    assertEquals(3000, doubled.sum().item(), 0);
    RuntimeException e = assertThrows(RuntimeException.class, () -> x.add(1).sum().item());
    Throwable cause = e;
    while (cause != null
        && (cause.getMessage() == null || !cause.getMessage().contains("was freed by this test"))) {
      cause = cause.getCause();
    }
    assertTrue(cause != null, "no cause names the free: " + e);
  }

  private static double[] times(double k, double[] v) {
    double[] r = v.clone();
    for (int i = 0; i < r.length; i++) {
      r[i] *= k;
    }
    return r;
  }
}
