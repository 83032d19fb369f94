package gallery.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Step;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Layer;
import dev.ondevice.optim.Sgd;

/** .item() and friends inside the batch loop: the host waits for the GPU on every batch. */
public final class HostSyncs {
  private HostSyncs() {}

  /** The loss summed on the host, one sync per batch. */
  static double train(Layer model, DataLoader loader, Device device) {
    model.toDevice(device);
    Sgd optimizer = new Sgd(model.parameters(), 0.05);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Tensor total = Tensor.scalar(0.0);
    for (Batch batch : loader) {
      Tensor xb = batch.inputs().to(device);
      Tensor yb = batch.targets().to(device);
      Tensor loss = criterion.forward(model.forward(xb), yb);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
      total = total.add(loss.detach());
    }
    return total.item();
  }

  /** Logging every batch. */
  static void log(Layer model, DataLoader loader, Device device) {
    for (Batch batch : loader) {
      Tensor out = model.forward(batch.inputs().to(device));
      System.out.println("batch logits " + out);
    }
  }

  /** Counting correct predictions on the host. */
  static long correct(Layer model, DataLoader loader, Device device) {
    long correct = 0;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch batch : loader) {
        Tensor predicted = model.forward(batch.inputs().to(device)).argmax(1, false);
        correct += predicted.eq(batch.targets().to(device)).sum().itemAsLong();
      }
    }
    return correct;
  }

  /** A step method that returns the loss as a number. */
  @Step
  static double step(Layer model, Sgd optimizer, CrossEntropyLoss criterion, Tensor xb, Tensor yb) {
    Tensor loss = criterion.forward(model.forward(xb), yb);
    optimizer.zeroGrad();
    loss.backward();
    optimizer.step();
    return loss.item();
  }
}
