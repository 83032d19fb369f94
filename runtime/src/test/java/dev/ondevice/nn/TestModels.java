package dev.ondevice.nn;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.annotations.OnDevice;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Models compiled by the processor for the tests of generated code. */
final class TestModels {
  private TestModels() {}

  /** A block with one parameter and one buffer. */
  static class Block extends Model {
    final Parameter w;
    @Buffer Tensor count = Tensor.zeros(1, Device.cpu());

    Block(float value) {
      w = new Parameter(Tensor.full(dev.ondevice.Shape.of(2), value));
    }
  }

  /** A base class whose fields come first. */
  abstract static class Base extends Model {
    final Parameter scale = new Parameter(Tensor.ones(1));
  }

  /** Every kind of state. */
  static class Net extends Base {
    final Linear fc1 = new Linear(3, 4);
    @Buffer Tensor runningMean = Tensor.zeros(4, Device.cpu());

    @Buffer(persistent = false)
    Tensor scratch = Tensor.zeros(4, Device.cpu());

    @OnDevice Tensor mask = Tensor.ones(4, Device.cpu());

    @Buffer
    @OnDevice("cpu")
    Tensor vocabulary = Tensor.arange(5);

    @OnDevice("cpu")
    Tensor lookupTable = Tensor.arange(10);

    final List<Block> blocks = List.of(new Block(1), new Block(2));
    final Map<String, Block> heads = new LinkedHashMap<>();
    int steps;

    Net() {
      heads.put("a", new Block(3));
      heads.put("b", new Block(4));
    }
  }

  /** Blocks in a map given from outside, of any kind. */
  static class Heads extends Model {
    final Map<String, Block> heads;

    Heads(Map<String, Block> heads) {
      this.heads = heads;
    }
  }

  /** Buffers filled lazily: null until the first batch, or until a checkpoint is loaded. */
  static class Lazy extends Model {
    final Linear fc = new Linear(2, 2);
    @Buffer Tensor stats;

    @Buffer
    @OnDevice("cpu")
    Tensor vocabulary;
  }

  /** A model holding the same block twice. */
  static class Shared extends Model {
    final Block first = new Block(5);
    final Block second = first;
  }
}
