package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.NllLoss;
import dev.ondevice.optim.Adam;
import java.util.Random;

/**
 * pytorch/examples' graph convolutional network: {@code load_cora} builds the row-normalised
 * features, the labels and the renormalised adjacency matrix {@code D^-1/2 (A + I) D^-1/2} on the
 * CPU and returns them moved to the device; {@code main} draws a random permutation of the nodes,
 * moves it to the device and slices it into test, validation and training index sets; each
 * {@code train_iter} runs one full-graph step on the training nodes ({@code output[mask_train]})
 * and calls {@code test} on the training and validation nodes, which returns {@code loss.item(),
 * acc.item()}.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/77f55b912142e11fcfdf5b530231fb9c52f181e8/gcn/main.py
 *
 * <p>Ported: GraphConv (xavier-normal kernel, optional bias, {@code support = input @ kernel},
 * {@code adj @ support}), GCN (two layers, ReLU, dropout, log-softmax), load_cora's normalisation
 * steps, train_iter and test as written, with NLLLoss and Adam with weight decay. Cora is replaced
 * by a small random graph, and the sparse matrices by dense ones ({@code torch.spmm} by {@code
 * matmul}); {@code torch.randperm} is a shuffled Java array; {@code scale[scale == inf] = 0} is
 * {@code where}. Left out: the download, argument parsing, timing.
 *
 * <p>Outcome: completes
 */
public final class ExamplesGcnTrainIter {
  private ExamplesGcnTrainIter() {}

  static final class GraphConv extends Model {
    final Parameter kernel;
    final Parameter bias;

    GraphConv(int inputDim, int outputDim, boolean useBias) {
      double std = Math.sqrt(2.0 / (inputDim + outputDim));    // nn.init.xavier_normal_
      kernel = new Parameter(Tensor.randn(Shape.of(inputDim, outputDim)).mul(std));
      bias = useBias ? new Parameter(Tensor.zeros(outputDim)) : null;
    }

    Tensor forward(Tensor inputTensor, Tensor adjMat) {
      Tensor support = inputTensor.matmul(kernel);
      Tensor output = adjMat.matmul(support);
      if (bias != null) {
        output = output.add(bias);
      }
      return output;
    }
  }

  static final class Gcn extends Model {
    final GraphConv gc1;
    final GraphConv gc2;
    final Dropout dropout;

    Gcn(int inputDim, int hiddenDim, int outputDim, boolean useBias, double dropoutP) {
      gc1 = new GraphConv(inputDim, hiddenDim, useBias);
      gc2 = new GraphConv(hiddenDim, outputDim, useBias);
      dropout = new Dropout(dropoutP);
    }

    Tensor forward(Tensor inputTensor, Tensor adjMat) {
      Tensor x = gc1.forward(inputTensor, adjMat);
      x = x.relu();
      x = dropout.forward(x);
      x = gc2.forward(x, adjMat);
      return x.logSoftmax(1);
    }
  }

  /** load_cora on a random graph: returns features, labels and the normalised adjacency on {@code device}. */
  static Tensor[] loadGraph(int numNodes, int numFeatures, int numClasses, Device device) {
    Tensor features = Tensor.rand(Shape.of(numNodes, numFeatures)).lt(0.2).to(DType.FLOAT32);
    Tensor scaleVector = features.sum(1);
    scaleVector = scaleVector.rdiv(1.0);
    scaleVector = Tensor.where(scaleVector.eq(Double.POSITIVE_INFINITY), Tensor.zerosLike(scaleVector), scaleVector);
    features = features.mul(scaleVector.unsqueeze(1));
    Tensor labels = Tensor.randint(0, numClasses, Shape.of(numNodes));
    Tensor adjMat = Tensor.rand(Shape.of(numNodes, numNodes)).lt(0.05).to(DType.FLOAT32);
    adjMat = Tensor.eye(numNodes, Device.cpu()).add(adjMat);
    Tensor degreeMat = adjMat.sum(1);
    degreeMat = degreeMat.rdiv(1.0).sqrt();
    degreeMat = Tensor.where(degreeMat.eq(Double.POSITIVE_INFINITY), Tensor.zerosLike(degreeMat), degreeMat);
    adjMat = degreeMat.unsqueeze(1).mul(adjMat).mul(degreeMat.unsqueeze(0));
    return new Tensor[] {features.to(device), labels.to(device), adjMat.to(device)}; // costs time: CreateThenMove
  }

  static void trainIter(int epoch, Gcn model, Adam optimizer, NllLoss criterion, Tensor[] input, Tensor target,
      Tensor maskTrain, Tensor maskVal, int printEvery) {
    model.train();
    optimizer.zeroGrad();
    Tensor output = model.forward(input[0], input[1]);
    Tensor loss = criterion.forward(output.indexSelect(0, maskTrain), target.indexSelect(0, maskTrain));
    loss.backward();
    optimizer.step();
    double[] train = test(model, criterion, input, target, maskTrain);
    double[] val = test(model, criterion, input, target, maskVal);
    if (epoch % printEvery == 0) {
      System.out.printf("Epoch: %04d loss_train: %.4f acc_train: %.4f loss_val: %.4f acc_val: %.4f%n", epoch, train[0],
          train[1], val[0], val[1]);
    }
  }

  static double[] test(Gcn model, NllLoss criterion, Tensor[] input, Tensor target, Tensor mask) {
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor output = model.forward(input[0], input[1]);
      output = output.indexSelect(0, mask);
      target = target.indexSelect(0, mask);
      Tensor loss = criterion.forward(output, target);
      Tensor acc = output.argmax(1).eq(target).to(DType.FLOAT32).sum().div(target.size(0));
      return new double[] {loss.item(), acc.item()}; // costs time: HostSyncInLoop
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Tensor[] graph = loadGraph(60, 24, 4, device);
    Tensor features = graph[0];
    Tensor labels = graph[1];
    Tensor adjMat = graph[2];
    long[] perm = new long[(int) labels.size(0)];
    for (int i = 0; i < perm.length; i++) {
      perm[i] = i;
    }
    Random random = new Random(42);
    for (int i = perm.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long tmp = perm[i];
      perm[i] = perm[j];
      perm[j] = tmp;
    }
    Tensor idx = Tensor.of(perm).to(device); // costs time: CreateThenMove
    Tensor idxTest = idx.slice(0, 0, 20);
    Tensor idxVal = idx.slice(0, 20, 30);
    Tensor idxTrain = idx.slice(0, 30, perm.length);
    Gcn gcn = new Gcn((int) features.size(1), 16, (int) labels.max().itemAsLong() + 1, false, 0.5);
    gcn.toDevice(device);
    Adam optimizer = new Adam(gcn.parameters(), 0.01).weightDecay(5e-4);
    NllLoss criterion = new NllLoss();
    for (int epoch = 0; epoch < 10; epoch++) {
      trainIter(epoch + 1, gcn, optimizer, criterion, new Tensor[] {features, adjMat}, labels, idxTrain, idxVal, 5);
    }
    double[] testResult = test(gcn, criterion, new Tensor[] {features, adjMat}, labels, idxTest);
    System.out.printf("Test set results: loss %.4f accuracy %.4f%n", testResult[0], testResult[1]);
  }
}
