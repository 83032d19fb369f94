package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * Dive into Deep Learning, "Recurrent Neural Network Implementation from Scratch": the RNN's
 * parameters are plain tensors made on the device by {@code get_params(vocab_size, num_hiddens,
 * device)} and held by {@code RNNModelScratch} (not an {@code nn.Module}), its state is made by
 * {@code init_rnn_state(batch_size, num_hiddens, device)}; {@code train_ch8} trains it with
 * {@code train_epoch_ch8} (random-sampling {@code SeqDataLoader}, a fresh state per minibatch,
 * {@code grad_clipping}, the hand-written {@code d2l.sgd} updater, a host-side
 * {@code Accumulator}) and prints {@code predict_ch8}'s continuation of a prefix.
 *
 * <p>Source: https://github.com/d2l-ai/d2l-en/blob/eee291f8a6397a34943f32e5c3507903c85b47f7/chapter_recurrent-neural-networks/rnn-scratch.md
 *
 * <p>Ported: from the source above (PyTorch tab: {@code get_params}, {@code init_rnn_state}, {@code rnn}) and {@code RNNModelScratch},
 * {@code predict_ch8}, {@code grad_clipping}, {@code train_epoch_ch8}, {@code train_ch8},
 * {@code SeqDataLoader}, {@code Vocab} and {@code sgd} from {@code d2l/torch.py} at the same commit,
 * as written, with a short text instead of The Time Machine, 32 hidden units, batches of 4
 * subsequences of 8 characters and 3 epochs. Left out: the {@code Animator} and {@code Timer}
 * (tokens/sec from {@code System.nanoTime}).
 *
 * <p>Outcome: completes
 */
public final class D2lRnnScratchTrainCh8 {
  private D2lRnnScratchTrainCh8() {}

  /** {@code d2l.Vocab} over characters (no minimum frequency, no reserved tokens). */
  static final class Vocab {
    final List<String> idxToToken = new ArrayList<>();

    Vocab(String text) {
      TreeSet<String> tokens = new TreeSet<>();
      tokens.add("<unk>");
      for (char c : text.toCharArray()) {
        tokens.add(String.valueOf(c));
      }
      idxToToken.addAll(tokens);
    }

    int size() {
      return idxToToken.size();
    }

    int get(String token) {
      int i = idxToToken.indexOf(token);
      return i < 0 ? idxToToken.indexOf("<unk>") : i;
    }
  }

  /** {@code d2l.SeqDataLoader} with random sampling: batches of (X, Y) host tensors. */
  static final class SeqDataLoader implements Iterable<Tensor[]> {
    final List<Integer> corpus;
    final int b;
    final int n;
    final Random random = new Random(0);

    SeqDataLoader(List<Integer> corpus, int batchSize, int numSteps) {
      this.corpus = corpus;
      this.b = batchSize;
      this.n = numSteps;
    }

    @Override
    public Iterator<Tensor[]> iterator() {
      // Randomly drop the first d tokens.
      List<Integer> c = corpus.subList(random.nextInt(n), corpus.size());
      // No. of subsequences. Subtract 1 to account for labels.
      int m = (c.size() - 1) / n;
      List<Integer> initialIndices = new ArrayList<>();
      for (int i = 0; i < m * n; i += n) {
        initialIndices.add(i);
      }
      Collections.shuffle(initialIndices, random);
      List<Tensor[]> batches = new ArrayList<>();
      for (int i = 0; i < m / b; i++) {
        long[] x = new long[b * n];
        long[] y = new long[b * n];
        for (int k = 0; k < b; k++) {
          int j = initialIndices.get(i * b + k);
          for (int t = 0; t < n; t++) {
            x[k * n + t] = c.get(j + t);
            y[k * n + t] = c.get(j + 1 + t);
          }
        }
        batches.add(new Tensor[] {Tensor.of(x, b, n), Tensor.of(y, b, n)});
      }
      return batches.iterator();
    }
  }

  static List<Tensor> getParams(int vocabSize, int numHiddens, Device device) {
    int numInputs = vocabSize;
    int numOutputs = vocabSize;
    // Hidden layer parameters
    Tensor wXh = Tensor.randn(Shape.of(numInputs, numHiddens), device).mul(0.01);
    Tensor wHh = Tensor.randn(Shape.of(numHiddens, numHiddens), device).mul(0.01);
    Tensor bH = Tensor.zeros(Shape.of(numHiddens), device);
    // Output layer parameters
    Tensor wHq = Tensor.randn(Shape.of(numHiddens, numOutputs), device).mul(0.01);
    Tensor bQ = Tensor.zeros(Shape.of(numOutputs), device);
    // Attach gradients
    List<Tensor> params = new ArrayList<>();
    for (Tensor param : List.of(wXh, wHh, bH, wHq, bQ)) {
      params.add(param.requiresGrad(true));
    }
    return params;
  }

  static Tensor[] initRnnState(int batchSize, int numHiddens, Device device) {
    return new Tensor[] {Tensor.zeros(Shape.of(batchSize, numHiddens), device)};
  }

  /** {@code rnn(inputs, state, params)}: returns the outputs and the new state. */
  static Object[] rnn(Tensor inputs, Tensor[] state, List<Tensor> params) {
    Tensor wXh = params.get(0);
    Tensor wHh = params.get(1);
    Tensor bH = params.get(2);
    Tensor wHq = params.get(3);
    Tensor bQ = params.get(4);
    Tensor h = state[0];
    List<Tensor> outputs = new ArrayList<>();
    for (int t = 0; t < inputs.size(0); t++) {
      Tensor x = inputs.select(0, t);
      h = x.matmul(wXh).add(h.matmul(wHh)).add(bH).tanh();
      Tensor y = h.matmul(wHq).add(bQ);
      outputs.add(y);
    }
    return new Object[] {Tensor.cat(outputs, 0), new Tensor[] {h}};
  }

  /** {@code RNNModelScratch}: a plain class holding the parameter tensors. */
  static final class RnnModelScratch {
    final int vocabSize;
    final int numHiddens;
    final List<Tensor> params;

    RnnModelScratch(int vocabSize, int numHiddens, Device device) {
      this.vocabSize = vocabSize;
      this.numHiddens = numHiddens;
      this.params = getParams(vocabSize, numHiddens, device);
    }

    Object[] call(Tensor x, Tensor[] state) {
      Tensor xs = Tensor.oneHot(x.t(), vocabSize).to(DType.FLOAT32);
      return rnn(xs, state, params);
    }

    Tensor[] beginState(int batchSize, Device device) {
      return initRnnState(batchSize, numHiddens, device);
    }
  }

  static String predictCh8(String prefix, int numPreds, RnnModelScratch net, Vocab vocab, Device device) {
    Tensor[] state = net.beginState(1, device);
    List<Integer> outputs = new ArrayList<>();
    outputs.add(vocab.get(prefix.substring(0, 1)));
    for (int i = 1; i < prefix.length(); i++) {   // Warm-up period
      Tensor input = Tensor.of(new long[] {outputs.get(outputs.size() - 1)}, Shape.of(1), device).reshape(1, 1);
      state = (Tensor[]) net.call(input, state)[1];
      outputs.add(vocab.get(prefix.substring(i, i + 1)));
    }
    for (int i = 0; i < numPreds; i++) {             // Predict `num_preds` steps
      Tensor input = Tensor.of(new long[] {outputs.get(outputs.size() - 1)}, Shape.of(1), device).reshape(1, 1);
      Object[] out = net.call(input, state);
      state = (Tensor[]) out[1];
      outputs.add((int) ((Tensor) out[0]).argmax(1).reshape(1).itemAsLong()); // costs time: HostSyncInLoop
    }
    StringBuilder sb = new StringBuilder();
    outputs.forEach(i -> sb.append(vocab.idxToToken.get(i)));
    return sb.toString();
  }

  static void gradClipping(RnnModelScratch net, double theta) {
    List<Tensor> params = net.params;
    Tensor norm = null;   // sum(torch.sum((p.grad ** 2)) for p in params)
    for (Tensor p : params) {
      Tensor s = p.grad().square().sum();
      norm = norm == null ? s : norm.add(s);
    }
    norm = norm.sqrt();
    if (norm.item() > theta) { // costs time: HostSyncInLoop
      for (Tensor param : params) {
        param.grad().muli(norm.rdiv(theta));
      }
    }
  }

  /** {@code d2l.sgd}: minibatch stochastic gradient descent. */
  static void sgd(List<Tensor> params, double lr, int batchSize) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Tensor param : params) {
        param.subi(param.grad().mul(lr / batchSize));
        param.grad().fill(0);
      }
    }
  }

  static double[] trainEpochCh8(RnnModelScratch net, SeqDataLoader trainIter, CrossEntropyLoss loss, double lr, Device device) {
    long start = System.nanoTime();
    double[] metric = new double[2];   // Sum of training loss, no. of tokens
    for (Tensor[] xy : trainIter) {
      Tensor x = xy[0];
      Tensor yy = xy[1];
      // With random sampling, initialize state for each iteration
      Tensor[] state = net.beginState((int) x.size(0), device);
      Tensor y = yy.t().reshape(-1);
      x = x.to(device);
      y = y.to(device);
      Object[] out = net.call(x, state);
      Tensor yHat = (Tensor) out[0];
      Tensor l = loss.forward(yHat, y.to(DType.INT64)).mean();
      l.backward();
      gradClipping(net, 1);
      // Since the `mean` function has been invoked
      sgd(net.params, lr, 1);
      metric[0] += l.mul(y.numel()).item(); // costs time: HostSyncInLoop
      metric[1] += y.numel();
    }
    return new double[] {Math.exp(metric[0] / metric[1]), metric[1] / ((System.nanoTime() - start) / 1e9)};
  }

  static void trainCh8(RnnModelScratch net, SeqDataLoader trainIter, Vocab vocab, double lr, int numEpochs, Device device) {
    CrossEntropyLoss loss = new CrossEntropyLoss();
    double[] pplSpeed = null;
    for (int epoch = 0; epoch < numEpochs; epoch++) {
      pplSpeed = trainEpochCh8(net, trainIter, loss, lr, device);
    }
    System.out.printf("perplexity %.1f, %.1f tokens/sec on %s%n", pplSpeed[0], pplSpeed[1], device);
    System.out.println(predictCh8("time traveller", 20, net, vocab, device));
  }

  public static void run(Device device) {
    String text = "the time traveller for so it will be convenient to speak of him was expounding a recondite matter to us ".repeat(3);
    Vocab vocab = new Vocab(text);
    List<Integer> corpus = new ArrayList<>();
    for (char c : text.toCharArray()) {
      corpus.add(vocab.get(String.valueOf(c)));
    }
    SeqDataLoader trainIter = new SeqDataLoader(corpus, 4, 8);
    int numHiddens = 32;
    RnnModelScratch net = new RnnModelScratch(vocab.size(), numHiddens, device);
    trainCh8(net, trainIter, vocab, 1, 3, device);
  }
}
