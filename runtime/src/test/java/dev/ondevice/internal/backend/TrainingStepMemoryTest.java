package dev.ondevice.internal.backend;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.MemoryScope;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Sgd;
import org.junit.jupiter.api.Test;

/**
 * A training step in a {@link MemoryScope} gives back everything it made: after the first steps,
 * every request is served from the allocator's cache and no fresh host memory is taken, without any
 * garbage collection. (Before, each step's memory came back only after a collection.)
 */
class TrainingStepMemoryTest {

  @Test
  void stepsInAScopeTakeNoFreshMemoryOnceWarm() {
    Sequential model =
        new Sequential(
            new Conv2d(1, 4, 3, 1, 1, true),
            new ReLU(),
            new MaxPool2d(2),
            new Flatten(),
            new Linear(4 * 6 * 6, 10));
    Sgd sgd = new Sgd(model.parameters(), 0.05).momentum(0.9);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Tensor x = Tensor.randn(Shape.of(32, 1, 12, 12));
    Tensor y = Tensor.randint(0, 10, Shape.of(32));
    long held = 0;
    for (int step = 0; step < 12; step++) {
      try (MemoryScope ignored = MemoryScope.open()) {
        Tensor loss = criterion.forward(model.forward(x), y);
        sgd.zeroGrad();
        loss.backward();
        sgd.step();
      }
      long now = HostAllocator.liveBytes() + HostAllocator.cachedBytes();
      if (step == 2) {
        held = now;
      } else if (step > 2) {
        // live + cached only falls when the cleaner or a full cache drops a block; a fresh block
        // raises it
        assertTrue(
            now <= held,
            "step " + step + " took fresh memory: " + now + " bytes held against " + held);
      }
    }
  }
}
