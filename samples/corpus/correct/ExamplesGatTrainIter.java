package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.LeakyReLU;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.NllLoss;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The PyTorch GAT example: {@code load_cora(device=device)} returns features, labels and the
 * adjacency matrix on the device, the split indices are {@code torch.randperm(...).to(device)}, the
 * model input is the tuple {@code (features, adj_mat)}, and {@code train_iter} and {@code test} index
 * outputs and targets with the index masks, reading loss and accuracy once per epoch.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/main/gat/main.py
 *
 * <p>Ported: GraphAttentionLayer (W, a, _get_attention_scores, masked softmax, both concat modes),
 * GAT, load_cora's return, train_iter and test as written, and the main block. Left out: argparse,
 * the Cora download and parsing (a random graph with self-loops, built on the CPU and moved at the
 * end as load_cora does). The API has no F.elu or functional dropout: elu is written with where/exp,
 * and dropout is a Dropout layer following the model's training mode; xavier_normal_ is randn times
 * the xavier std; randperm is a host shuffle; output[mask] is index_select.
 *
 * <p>Outcome: completes
 */
public final class ExamplesGatTrainIter {
  private ExamplesGatTrainIter() {}

  static final class GraphAttentionLayer extends Model {
    final int nHeads;
    final boolean concat;
    final int nHidden;
    final int outFeatures;
    final Parameter W;
    final Parameter a;
    final LeakyReLU leakyrelu;
    final Dropout dropout;

    GraphAttentionLayer(int inFeatures, int outFeatures, int nHeads, boolean concat, double dropout, double slope) {
      this.nHeads = nHeads;
      this.concat = concat;
      this.outFeatures = outFeatures;
      this.nHidden = concat ? outFeatures / nHeads : outFeatures;
      this.W = new Parameter(Tensor.randn(inFeatures, nHidden * nHeads)
          .mul(Math.sqrt(2.0 / (inFeatures + nHidden * nHeads))));
      this.a = new Parameter(Tensor.randn(Shape.of(nHeads, 2L * nHidden, 1)).mul(Math.sqrt(2.0 / (2 * nHidden + 1))));
      this.leakyrelu = new LeakyReLU(slope);
      this.dropout = new Dropout(dropout);
    }

    Tensor getAttentionScores(Tensor hTransformed) {
      Tensor sourceScores = hTransformed.matmul(a.slice(1, 0, nHidden));
      Tensor targetScores = hTransformed.matmul(a.slice(1, nHidden, 2L * nHidden));
      Tensor e = sourceScores.add(targetScores.transpose(-2, -1));
      return leakyrelu.forward(e);
    }

    Tensor forward(Tensor h, Tensor adjMat) {
      long nNodes = h.size(0);
      Tensor hTransformed = h.matmul(W);
      hTransformed = dropout.forward(hTransformed);
      hTransformed = hTransformed.view(nNodes, nHeads, nHidden).permute(1, 0, 2);
      Tensor e = getAttentionScores(hTransformed);
      Tensor connectivityMask = Tensor.onesLike(e).mul(-9e16);
      e = Tensor.where(adjMat.gt(0), e, connectivityMask); // masked attention scores
      Tensor attention = e.softmax(-1);
      attention = dropout.forward(attention);
      Tensor hPrime = attention.matmul(hTransformed);
      if (concat) {
        return hPrime.permute(1, 0, 2).contiguous().view(nNodes, outFeatures);
      }
      return hPrime.mean(0);
    }
  }

  static final class GAT extends Model {
    final GraphAttentionLayer gat1;
    final GraphAttentionLayer gat2;

    GAT(int inFeatures, int nHidden, int nHeads, int numClasses, boolean concat, double dropout, double slope) {
      gat1 = new GraphAttentionLayer(inFeatures, nHidden, nHeads, concat, dropout, slope);
      gat2 = new GraphAttentionLayer(nHidden, numClasses, 1, false, dropout, slope);
    }

    Tensor forward(Tensor inputTensor, Tensor adjMat) {
      Tensor x = gat1.forward(inputTensor, adjMat);
      x = Tensor.where(x.gt(0), x, x.exp().sub(1)); // F.elu
      x = gat2.forward(x, adjMat);
      return x.logSoftmax(1);
    }
  }

  /** load_cora's result for a random graph of {@code v} nodes: features, labels, adjacency, on {@code device}. */
  static List<Tensor> loadGraph(int v, Device device) {
    Tensor features = Tensor.bernoulli(0.2, Shape.of(v, 24), Device.cpu());
    features = features.div(features.sum(1, true).clampMin(1));
    Tensor labels = Tensor.randint(0, 3, Shape.of(v));
    Tensor adjMat = Tensor.eye(v, Device.cpu()).add(Tensor.bernoulli(0.1, Shape.of(v, v), Device.cpu()));
    return List.of(features.to(device), labels.to(device), adjMat.to(device));
  }

  static void trainIter(int epoch, GAT model, Adam optimizer, NllLoss criterion, List<Tensor> input, Tensor target,
      Tensor maskTrain, Tensor maskVal, int printEvery) {
    model.train();
    optimizer.zeroGrad();
    Tensor output = model.forward(input.get(0), input.get(1));
    Tensor loss = criterion.forward(output.indexSelect(0, maskTrain), target.indexSelect(0, maskTrain));
    loss.backward();
    optimizer.step();
    double[] train = test(model, criterion, input, target, maskTrain);
    double[] val = test(model, criterion, input, target, maskVal);
    if (epoch % printEvery == 0) {
      System.out.printf("Epoch: %04d loss_train: %.4f acc_train: %.4f loss_val: %.4f acc_val: %.4f%n", epoch,
          train[0], train[1], val[0], val[1]);
    }
  }

  static double[] test(GAT model, NllLoss criterion, List<Tensor> input, Tensor target, Tensor mask) {
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor output = model.forward(input.get(0), input.get(1));
      output = output.indexSelect(0, mask);
      target = target.indexSelect(0, mask);
      Tensor loss = criterion.forward(output, target);
      Tensor acc = output.argmax(1).eq(target).to(DType.FLOAT32).sum().div((double) target.size(0));
      return new double[] {loss.item(), acc.item()}; // costs time: HostSyncInLoop
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    List<Tensor> cora = loadGraph(40, device);
    Tensor features = cora.get(0);
    Tensor labels = cora.get(1);
    Tensor adjMat = cora.get(2);
    List<Long> perm = new ArrayList<>();
    for (long i = 0; i < labels.size(0); i++) {
      perm.add(i);
    }
    Collections.shuffle(perm, new java.util.Random(13));
    Tensor idx = Tensor.of(perm.stream().mapToLong(Long::longValue).toArray()).to(device);
    Tensor idxTest = idx.slice(0, 0, 12);
    Tensor idxVal = idx.slice(0, 12, 20);
    Tensor idxTrain = idx.slice(0, 20, 40);

    GAT gatNet = new GAT((int) features.size(1), 16, 4, (int) labels.max().itemAsLong() + 1, false, 0.6, 0.2);
    gatNet.toDevice(device);
    Adam optimizer = new Adam(gatNet.parameters(), 0.005).weightDecay(5e-4);
    NllLoss criterion = new NllLoss();
    for (int epoch = 0; epoch < 6; epoch++) {
      trainIter(epoch + 1, gatNet, optimizer, criterion, List.of(features, adjMat), labels, idxTrain, idxVal, 2);
    }
    double[] test = test(gatNet, criterion, List.of(features, adjMat), labels, idxTest);
    System.out.printf("Test set results: loss %.4f accuracy %.4f%n", test[0], test[1]);
  }
}
