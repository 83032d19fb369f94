package gallery.bugs;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;

/**
 * Batches moved to the device, the model left on the CPU: never moved, as a builder method returns
 * it, or given a new part after its move.
 */
public final class ModelNotMoved {
  private ModelNotMoved() {}

  /** The model is built and trained, but never moved. */
  static void train(DataLoader loader, Device device) {
    Sequential model = new Sequential(new Linear(784, 128), new ReLU(), new Linear(128, 10));
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    for (Batch batch : loader) {
      Tensor xb = batch.inputs().to(device).flatten(1, -1);
      Tensor yb = batch.targets().to(device);
      Tensor loss = criterion.forward(model.forward(xb), yb); // expect: ModelNotMoved
      loss.backward();
    }
  }

  /** A quick probe in a helper. */
  static Tensor probe(Device device) {
    Linear layer = new Linear(3, 2);
    return layer.forward(Tensor.randn(4, 3, device)); // expect: ModelNotMoved
  }

  /** The network as a builder method returns it: on the CPU. */
  static Sequential buildModel() {
    return new Sequential(new Linear(3, 8), new ReLU(), new Linear(8, 2));
  }

  /** A model from the builder, used as it comes. */
  static Tensor built(Device device) {
    Sequential model = buildModel();
    return model.forward(Tensor.randn(4, 3, device)); // expect: ModelNotMoved
  }

  /** A classifier whose head a fine-tuning run replaces. */
  static final class Classifier extends Model {
    Linear head = new Linear(3, 2);

    Tensor forward(Tensor x) {
      return head.forward(x);
    }
  }

  /** Fine-tuning: the head replaced after the move, as {@code model.fc = nn.Linear(...)} after {@code .to(device)}. */
  static Tensor newHead(Device device) {
    Classifier classifier = new Classifier();
    classifier.toDevice(device);
    classifier.head = new Linear(3, 4);
    return classifier.forward(Tensor.randn(4, 3, device)); // expect: ModelNotMoved
  }
}
