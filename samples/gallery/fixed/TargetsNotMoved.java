package gallery.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Layer;
import dev.ondevice.optim.Sgd;

/** The classic: the inputs were moved in the loop, the targets were not. */
public final class TargetsNotMoved {
  private TargetsNotMoved() {}

  /** The seed's training loop, minus one move. */
  static void train(Layer model, DataLoader loader, Device device) {
    model.toDevice(device);
    Sgd optimizer = new Sgd(model.parameters(), 0.05);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    for (Batch batch : loader) {
      Tensor xb = batch.inputs().to(device);
      Tensor yb = batch.targets();
      Tensor loss = criterion.forward(model.forward(xb), yb.to(device));
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }

  /** Evaluation: counting correct predictions against CPU labels. */
  static Tensor accuracy(Layer model, DataLoader loader, Device device) {
    Tensor correct = Tensor.zeros(Shape.scalar(), DType.INT64, device);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch batch : loader) {
        Tensor predicted = model.forward(batch.inputs().to(device)).argmax(1, false);
        correct = correct.add(predicted.eq(batch.targets().to(device)).sum());
      }
    }
    return correct;
  }

  /** Labels converted on the host, then compared with predictions on the device. */
  static Tensor trainWithFloatTargets(Layer model, DataLoader loader, Device device) {
    Tensor total = Tensor.zeros(Shape.scalar(), device);
    for (Batch batch : loader) {
      Tensor xb = batch.inputs().to(device);
      Tensor labels = batch.targets().to(DType.FLOAT32);
      Tensor error = model.forward(xb).argmax(1, false).to(DType.FLOAT32).sub(labels.to(device));
      total = total.add(error.abs().sum());
    }
    return total;
  }
}
