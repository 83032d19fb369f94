package corpus.correct;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.NllLoss;
import java.util.ArrayList;
import java.util.List;

/**
 * The PyTorch adversarial-example tutorial (FGSM): {@code test} runs the MNIST classifier one image
 * at a time, skips images it already gets wrong ({@code init_pred.item() != target.item()}), takes the
 * gradient of the loss with respect to the input, perturbs the image with {@code fgsm_attack} and
 * re-classifies it, keeping a few adversarial examples on the host.
 *
 * <p>Source: https://github.com/pytorch/tutorials/blob/03cd4915be50f10014722c35b8b04736c145d199/beginner_source/fgsm_tutorial.py
 *
 * <p>Ported: the LeNet Net, fgsm_attack, test and the epsilon loop as written ({@code Dropout2d} as
 * {@code Dropout}, {@code F.dropout} as a Dropout layer). The pretrained weights and the MNIST test
 * set (batch size 1) are replaced by random ones. Left out: the plots.
 *
 * <p>Outcome: completes
 */
public final class TutorialsFgsmAttackTest {
  private TutorialsFgsmAttackTest() {}

  /** LeNet Model definition. */
  static final class Net extends Model {
    final Conv2d conv1 = new Conv2d(1, 10, 5);
    final Conv2d conv2 = new Conv2d(10, 20, 5);
    final Dropout conv2Drop = new Dropout(0.5);
    final Linear fc1 = new Linear(320, 50);
    final Linear fc2 = new Linear(50, 10);
    final Dropout dropout = new Dropout(0.5);
    final MaxPool2d pool = new MaxPool2d(2);

    Tensor forward(Tensor x) {
      x = pool.forward(conv1.forward(x)).relu();
      x = pool.forward(conv2Drop.forward(conv2.forward(x))).relu();
      x = x.view(-1, 320);
      x = fc1.forward(x).relu();
      x = dropout.forward(x);
      x = fc2.forward(x);
      return x.logSoftmax(1);
    }
  }

  /** FGSM attack code. */
  static Tensor fgsmAttack(Tensor image, double epsilon, Tensor dataGrad) {
    Tensor signDataGrad = dataGrad.sign();
    Tensor perturbedImage = image.add(signDataGrad.mul(epsilon));
    perturbedImage = perturbedImage.clamp(0, 1);
    return perturbedImage;
  }

  static double test(Net model, Device device, DataLoader testLoader, double epsilon, List<long[]> advExamples) {
    int correct = 0;
    NllLoss nllLoss = new NllLoss();
    for (Batch batch : testLoader) {
      Tensor data = batch.inputs().to(device);
      Tensor target = batch.targets().to(device);
      data = data.requiresGrad(true);
      Tensor output = model.forward(data);
      Tensor initPred = output.argmax(1, true);
      if (initPred.itemAsLong() != target.itemAsLong()) { // costs time: HostSyncInLoop
        continue;
      }
      Tensor loss = nllLoss.forward(output, target);
      model.zeroGrad();
      loss.backward();
      Tensor dataGrad = data.grad();
      Tensor perturbedData = fgsmAttack(data, epsilon, dataGrad);
      output = model.forward(perturbedData);
      Tensor finalPred = output.argmax(1, true);
      if (finalPred.itemAsLong() == target.itemAsLong()) { // costs time: HostSyncInLoop
        correct += 1;
        if (epsilon == 0 && advExamples.size() < 5) {
          float[] advEx = perturbedData.squeeze().detach().cpu().toFloatArray(); // costs time: HostSyncInLoop
          advExamples.add(new long[] {initPred.itemAsLong(), finalPred.itemAsLong(), advEx.length}); // costs time: HostSyncInLoop
        }
      } else {
        if (advExamples.size() < 5) {
          float[] advEx = perturbedData.squeeze().detach().cpu().toFloatArray(); // costs time: HostSyncInLoop
          advExamples.add(new long[] {initPred.itemAsLong(), finalPred.itemAsLong(), advEx.length}); // costs time: HostSyncInLoop
        }
      }
    }
    double finalAcc = correct / (double) testLoader.numBatches();
    System.out.printf("Epsilon: %s\tTest Accuracy = %d / %d = %s%n", epsilon, correct, testLoader.numBatches(), finalAcc);
    return finalAcc;
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Net model = new Net();
    model.toDevice(device);
    model.eval();
    TensorDataset testSet = new TensorDataset(Tensor.rand(Shape.of(12, 1, 28, 28)), Tensor.randint(0, 10, Shape.of(12)));
    DataLoader testLoader = DataLoader.builder(testSet).batchSize(1).shuffle(0).build();
    List<Double> accuracies = new ArrayList<>();
    List<List<long[]>> examples = new ArrayList<>();
    for (double eps : new double[] {0, .05, .1, .15, .2, .25, .3}) {
      List<long[]> ex = new ArrayList<>();
      accuracies.add(test(model, device, testLoader, eps, ex));
      examples.add(ex);
    }
    System.out.println(accuracies);
  }
}
