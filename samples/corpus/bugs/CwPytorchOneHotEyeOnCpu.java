package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.nn.Reduction;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import java.util.function.Function;

/**
 * Harry24k's CW-pytorch ({@code CW.ipynb}): the Carlini-Wagner L2 attack against a pretrained
 * ImageNet classifier. {@code cw_l2_attack} moves the images and labels to the device, optimises
 * {@code w} in tanh space with Adam, and its inner {@code f(x)} builds one-hot labels to compare
 * the true class's logit with the best other logit; the notebook then classifies the adversarial
 * images and reports the accuracy.
 *
 * <p>Source: https://github.com/Harry24k/CW-pytorch/issues/3 (no fix in the repository)
 *
 * <p>Bug: inside {@code f}, {@code one_hot_labels = torch.eye(len(outputs[0]))[labels].to(device)}
 * indexes an identity made on the CPU with the labels that {@code cw_l2_attack} moved to the GPU a
 * few lines above ("indices should be either on cpu or on the same device as the indexed tensor
 * (cpu)"). The identity has to be made on the labels' device (or indexed with CPU labels).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class CwPytorchOneHotEyeOnCpu {
  private CwPytorchOneHotEyeOnCpu() {}

  static Device device;

  static Tensor cwL2Attack(Sequential model, Tensor images, Tensor labels, boolean targeted, double c, double kappa,
      int maxIter, double learningRate) {
    images = images.to(device);
    Tensor labelsOnDevice = labels.to(device);   // `labels = labels.to(device)`: a lambda needs a final variable

    // Define f-function
    Function<Tensor, Tensor> f = x -> {
      Tensor outputs = model.forward(x);
      Tensor oneHotLabels = Tensor.eye(outputs.size(1)).indexSelect(0, labelsOnDevice).to(device); // bug: in-method
      Tensor i = oneHotLabels.rsub(1).mul(outputs).max(1).values();
      Tensor j = outputs.mul(oneHotLabels).sum(1);   // masked_select of the one true class per row
      // If targeted, optimize for making the other class most likely
      if (targeted) {
        return i.sub(j).clampMin(-kappa);
      }
      // If untargeted, optimize for making the other class most likely
      return j.sub(i).clampMin(-kappa);
    };

    Parameter w = new Parameter(Tensor.zerosLike(images).to(device));
    Adam optimizer = new Adam(java.util.List.of(w), learningRate);
    Tensor prev = Tensor.scalar(1e10);
    for (int step = 0; step < maxIter; step++) {
      Tensor a = w.tanh().add(1).mul(0.5);
      Tensor loss1 = new MseLoss(Reduction.SUM).forward(a, images);
      Tensor loss2 = f.apply(a).mul(c).sum(); // same bug
      Tensor cost = loss1.add(loss2);
      optimizer.zeroGrad();
      cost.backward();
      optimizer.step();
      // Early Stop when loss does not converge.
      if (step % (maxIter / 10) == 0) {
        if (cost.gt(prev).itemAsBoolean()) {
          System.out.println("Attack Stopped due to CONVERGENCE....");
          return a;
        }
        prev = cost.detach();
      }
      System.out.printf("- Learning Progress : %2.2f %%        \r", (step + 1) * 100.0 / maxIter);
    }
    return w.tanh().add(1).mul(0.5);
  }

  public static void run(Device runDevice) {
    device = runDevice;
    // a small classifier standing in for the pretrained inception_v3, in eval mode
    Sequential model = new Sequential(new Conv2d(3, 8, 3, 1, 1, true), new ReLU(), new MaxPool2d(2), new Flatten(), new Linear(8 * 8 * 8, 10));
    model.toDevice(device);
    DataLoader normalLoader = DataLoader.builder(new TensorDataset(Tensor.rand(Shape.of(2, 3, 16, 16)), Tensor.randint(0, 10, Shape.of(2))))
        .batchSize(1).build();

    System.out.println("Attack Image & Predicted Label");
    model.eval();
    Tensor correct = Tensor.zeros(Shape.scalar(), device);
    int total = 0;
    for (Batch b : normalLoader) {
      Tensor images = cwL2Attack(model, b.inputs(), b.targets(), false, 0.1, 0, 20, 0.01);
      Tensor labels = b.targets().to(device);
      Tensor outputs;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        outputs = model.forward(images);
      }
      Tensor pre = outputs.max(1).indices();
      total += 1;
      correct = correct.add(pre.eq(labels).sum());
    }
    System.out.printf("Accuracy of attack: %f %%%n", 100 * correct.item() / total);
  }
}
