package gallery.correct;

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
import java.util.List;

/**
 * The seed's discipline, written out: one device variable used everywhere, the model moved once
 * without assignment, inputs and targets moved in the loop (reassigning the batch variables), the
 * loss accumulated on the device and read once per epoch.
 */
public final class DeviceAgnosticTraining {
  private DeviceAgnosticTraining() {}

  /** Trains and returns the mean loss of each epoch. */
  static double[] train(Layer model, DataLoader loader, int epochs) {
    Device device = Device.cudaIfAvailable();
    model.toDevice(device);
    Sgd optimizer = new Sgd(model.parameters(), 0.05).momentum(0.9);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    double[] losses = new double[epochs];
    for (int epoch = 0; epoch < epochs; epoch++) {
      model.train();
      Tensor total = Tensor.zeros(Shape.scalar(), device);
      int batches = 0;
      for (Batch batch : loader) {
        Tensor xb = batch.inputs();
        Tensor yb = batch.targets();
        xb = xb.to(device, true);
        yb = yb.to(device, true);
        Tensor loss = criterion.forward(model.forward(xb), yb);
        optimizer.zeroGrad();
        loss.backward();
        optimizer.step();
        total = total.add(loss.detach());
        batches++;
      }
      losses[epoch] = total.item() / batches;
      System.out.println("epoch " + epoch + " loss " + losses[epoch]);
    }
    return losses;
  }

  /** Counts correct predictions on the device and reads the count once. */
  static long correct(Layer model, DataLoader loader, Device device) {
    model.eval();
    Tensor correct = Tensor.zeros(Shape.scalar(), DType.INT64, device);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch batch : loader) {
        Tensor predicted = model.forward(batch.inputs().to(device)).argmax(1, false);
        correct = correct.add(predicted.eq(batch.targets().to(device)).sum());
      }
    }
    return correct.itemAsLong();
  }

  /** Loss and accuracy read together: one synchronisation for both. */
  static double[] summary(Tensor lossTotal, Tensor correct) {
    return Tensor.stack(List.of(lossTotal, correct.to(DType.FLOAT32)), 0).toDoubleArray();
  }
}
