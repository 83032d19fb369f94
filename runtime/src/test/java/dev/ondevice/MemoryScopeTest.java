package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link MemoryScope}: what a training step inside one frees when it closes (the forward pass's
 * results), what it must never free (parameters and their views, gradients, optimizer state, kept
 * tensors), and that the step computes exactly what it computes without one.
 */
class MemoryScopeTest {

  /**
   * Trains a small classifier for three steps, each in a scope or not; returns the parameters'
   * values.
   */
  private static List<float[]> train(boolean scoped) {
    Generator.manualSeed(7);
    Linear first = new Linear(6, 5);
    Linear second = new Linear(5, 3);
    List<Parameter> params = new ArrayList<>(first.parameters());
    params.addAll(second.parameters());
    Sgd sgd = new Sgd(params, 0.1).momentum(0.9);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Tensor x = Tensor.randn(4, 6);
    Tensor y = Tensor.of(new long[] {0, 2, 1, 2});
    for (int step = 0; step < 3; step++) {
      try (MemoryScope scope = scoped ? MemoryScope.open() : null) {
        Tensor hidden = first.forward(x).relu();
        Tensor loss = criterion.forward(second.forward(hidden), y);
        sgd.zeroGrad();
        loss.backward();
        sgd.step();
      }
    }
    List<float[]> values = new ArrayList<>();
    for (Parameter p : params) {
      values.add(p.toFloatArray());
    }
    return values;
  }

  @Test
  void stepsInAScopeComputeExactlyWhatStepsOutsideOneCompute() {
    List<float[]> plain = train(false);
    List<float[]> scoped = train(true);
    for (int i = 0; i < plain.size(); i++) {
      assertArrayEquals(plain.get(i), scoped.get(i), "parameter " + i);
    }
  }

  @Test
  void closingFreesTheForwardPassButNotParametersGradientsStateOrKeptTensors() {
    Linear layer = new Linear(3, 2);
    Sgd sgd = new Sgd(layer.parameters(), 0.1).momentum(0.9);
    Tensor x = Tensor.randn(4, 3);
    Tensor hidden;
    Tensor transposed;
    Tensor loss;
    try (MemoryScope scope = MemoryScope.open()) {
      hidden = layer.forward(x);
      transposed = layer.weight().t();
      loss = scope.keep(hidden.relu().sum());
      loss.backward();
      sgd.step();
    }
    IllegalStateException e = assertThrows(IllegalStateException.class, hidden::sum);
    assertTrue(
        e.getMessage().contains("MemoryScope") && e.getMessage().contains("keep"), e.getMessage());
    assertFalse(transposed.data.storage().isFreed(), "a view of a parameter is the parameter");
    assertEquals(layer.weight().sum().item(), transposed.sum().item(), 0);
    loss.item();
    for (Parameter p : layer.parameters()) {
      p.grad().sum().item();
      sgd.state(layer.parameters().indexOf(p)).values().forEach(t -> t.sum().item());
    }
    x.sum().item();
  }

  @Test
  void aTensorKeptByAnInnerScopeIsFreedByTheOuterOne() {
    Tensor w = Tensor.randn(3).requiresGrad(true);
    Tensor kept;
    try (MemoryScope outer = MemoryScope.open()) {
      try (MemoryScope inner = MemoryScope.open()) {
        kept = inner.keep(w.mul(2));
      }
      assertEquals(w.sum().item() * 2, kept.sum().item(), 1e-6);
    }
    assertThrows(IllegalStateException.class, kept::sum);
  }
}
