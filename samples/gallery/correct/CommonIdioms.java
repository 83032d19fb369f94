package gallery.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.Dataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import java.util.ArrayList;
import java.util.List;

/**
 * Idioms of real training code that run on any device: model constructors that work on the CPU
 * before the model is moved, views of pinned batches copied asynchronously, statistics kept as
 * 0-dim CPU scalars, weights assigned to a moved layer, layers moved as parts of a container, and
 * a helper's list in the place of a list of tensors.
 */
public final class CommonIdioms {
  private CommonIdioms() {}

  /** A dummy forward pass in the constructor sizes the classifier; the model is on the CPU then. */
  static final class Cnn extends Model {
    final Sequential features = new Sequential(new Conv2d(1, 8, 3), new ReLU(), new MaxPool2d(2), new Flatten());
    final Linear head;

    Cnn() {
      long flat = features.forward(Tensor.zeros(Shape.of(1, 1, 28, 28))).size(1);
      head = new Linear((int) flat, 10);
    }

    Tensor forward(Tensor x) {
      return head.forward(features.forward(x));
    }
  }

  /** Buffers built from CPU statistics in initializers and the constructor, moved with the model. */
  static final class Normalize extends Model {
    @Buffer Tensor mean = Tensor.full(Shape.of(4), 0.5);
    @Buffer Tensor shift = mean.mul(Tensor.full(Shape.of(4), -1.0));
    @Buffer Tensor invStd;

    Normalize(Tensor std) {
      invStd = Tensor.ones(Shape.of(std.size(0))).div(std);
    }

    Tensor forward(Tensor x) {
      return x.add(shift).mul(invStd);
    }
  }

  /** A pinned loader's images flattened (a view, pinned too) before the asynchronous copy. */
  static void train(Layer model, Dataset data, Device device) {
    DataLoader loader = DataLoader.builder(data).batchSize(64).pinMemory(true).build();
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    for (Batch b : loader) {
      Tensor xb = b.inputs().view(-1, 784).to(device, true);
      Tensor yb = b.targets().to(device, true);
      criterion.forward(model.forward(xb), yb).backward();
    }
  }

  /** Slices of one tensor pinned once, each copied asynchronously. */
  static Tensor total(float[] pixels, int n, Device device) {
    Tensor all = Tensor.of(pixels, n, 784).pinMemory();
    Tensor sum = Tensor.zeros(Shape.scalar(), device);
    for (long s = 0; s + 64 <= n; s += 64) {
      sum = sum.add(all.narrow(0, s, 64).to(device, true).sum());
    }
    return sum;
  }

  /** Statistics computed on the host stay 0-dim CPU scalars through elementwise ops and casts. */
  static Tensor normalized(float[] pixels, Device device) {
    Tensor hostData = Tensor.of(pixels);
    Tensor x = Tensor.randn(Shape.of(64, 784), device);
    Tensor std = hostData.sub(hostData.mean()).square().mean().sqrt();
    Tensor count = Tensor.scalar(64L).to(DType.FLOAT32);
    return x.sub(hostData.mean()).div(std).div(count);
  }

  /** Pretrained weights from host arrays into a layer already moved: assign copies them over. */
  static Linear load(float[] w, float[] b, Device device) {
    Linear fc = new Linear(3, 2);
    fc.toDevice(device);
    fc.weight().assign(Tensor.of(w, 2, 3));
    fc.bias().assign(Tensor.of(b, 2));
    return fc;
  }

  /** Layers kept as locals, moved as parts of the Sequential that holds them. */
  static Tensor parts(Device device) {
    Linear encoder = new Linear(784, 64);
    Linear head = new Linear(64, 10);
    Sequential model = new Sequential(encoder, new ReLU(), head);
    model.toDevice(device);
    return head.forward(encoder.forward(Tensor.randn(Shape.of(8, 784), device)).relu());
  }

  /** Two models moved in one loop over a list of them. */
  static Tensor pair(Device device) {
    Linear a = new Linear(4, 4);
    Linear b = new Linear(4, 4);
    for (Layer m : List.of(a, b)) {
      m.toDevice(device);
    }
    return b.forward(a.forward(Tensor.randn(Shape.of(2, 4), device)));
  }

  /** A helper that moves every tensor it is given, its list used where a list of tensors goes. */
  static Tensor joined(Device device) {
    Tensor host = Tensor.randn(Shape.of(2, 3));
    Tensor onDevice = Tensor.randn(Shape.of(2, 3), device);
    return Tensor.cat(allOn(device, host, onDevice), 0);
  }

  private static List<Tensor> allOn(Device device, Tensor... parts) {
    List<Tensor> out = new ArrayList<>();
    for (Tensor t : parts) {
      out.add(t.to(device));
    }
    return out;
  }
}
