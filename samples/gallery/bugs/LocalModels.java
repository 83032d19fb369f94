package gallery.bugs;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;

/**
 * Model classes the processor cannot see: declared inside a method (an example pasted into
 * {@code main}) or as an anonymous class. They compile, and their first move throws.
 */
public final class LocalModels {
  private LocalModels() {}

  /** The README's model pasted into main, as a local class. */
  public static void main(String[] args) {
    class Net extends Model { // expect: LocalModelClass
      final Linear fc1 = new Linear(784, 128);
      final Linear fc2 = new Linear(128, 10);
      @Buffer Tensor classWeights = Tensor.ones(10, Device.cpu());

      Tensor forward(Tensor x) {
        return fc2.forward(fc1.forward(x).relu());
      }
    }
    Device device = Device.cudaIfAvailable();
    Net net = new Net();
    net.toDevice(device);
    System.out.println(net.forward(Tensor.randn(64, 784, device)).shape());
  }

  /** A quick activation written inline, inside a Sequential that is moved with it. */
  static Sequential classifier(Device device) {
    Sequential net = new Sequential(new Linear(784, 128), new Layer() { // expect: LocalModelClass
      @Override
      public Tensor forward(Tensor x) {
        return x.relu().mul(2.0);
      }
    }, new Linear(128, 10));
    net.toDevice(device);
    return net;
  }

  /** A head defined where it is used, with its own parameters. */
  static Tensor probe(Tensor features) {
    class Head extends Layer { // expect: LocalModelClass
      final Linear fc = new Linear(16, 2);
      final ReLU act = new ReLU();

      @Override
      public Tensor forward(Tensor x) {
        return act.forward(fc.forward(x));
      }
    }
    Head head = new Head();
    head.toDevice(features.device());
    return head.forward(features);
  }
}
