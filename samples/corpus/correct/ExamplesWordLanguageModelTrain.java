package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Gradients;
import java.util.ArrayList;
import java.util.List;

/**
 * The PyTorch word-language-model example (2017 version): {@code batchify} puts the corpus on the GPU
 * once, {@code get_batch} slices it, {@code repackage_hidden} detaches the hidden state made by
 * {@code init_hidden} on the weights' device, and the losses are summed as tensors ({@code .data})
 * and read every {@code log_interval} batches and once per evaluation.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/cf74c81ec00256a9511c054aaf0b3f62cd3aa62d/word_language_model/main.py
 * (model: word_language_model/model.py at the same commit)
 *
 * <p>Ported: batchify, repackage_hidden, get_batch, evaluate, train (manual SGD update, clipping),
 * RNNModel (drop, encoder, rnn, decoder, init_weights, init_hidden) with the module-level globals as
 * static fields. The API has no nn.RNN/LSTM: an RNN_TANH stack is written out as Linear layers; the
 * LSTM tuple branch of repackage_hidden is left out. Variable(volatile=True) in get_batch becomes
 * Autograd.noGrad() around evaluate. Left out: argparse, the corpus reader (random token ids),
 * saving the best model with torch.save, the lr annealing.
 *
 * <p>Outcome: completes
 */
public final class ExamplesWordLanguageModelTrain {
  private ExamplesWordLanguageModelTrain() {}

  record Args(boolean cuda, int bptt, double clip, int logInterval) {}

  record RnnOutput(Tensor output, Tensor hidden) {}

  /** An nn.RNN(ninp, nhid, nlayers) with tanh, written out. */
  static final class RnnTanh extends Model {
    final List<Linear> ih = new ArrayList<>();
    final List<Linear> hh = new ArrayList<>();

    RnnTanh(int ninp, int nhid, int nlayers) {
      for (int l = 0; l < nlayers; l++) {
        ih.add(new Linear(l == 0 ? ninp : nhid, nhid));
        hh.add(new Linear(nhid, nhid));
      }
    }

    RnnOutput forward(Tensor input, Tensor hidden) {
      Tensor x = input;
      List<Tensor> last = new ArrayList<>();
      for (int l = 0; l < ih.size(); l++) {
        Tensor h = hidden.select(0, l);
        List<Tensor> outs = new ArrayList<>();
        for (int t = 0; t < x.size(0); t++) {
          h = ih.get(l).forward(x.select(0, t)).add(hh.get(l).forward(h)).tanh();
          outs.add(h);
        }
        x = Tensor.stack(outs, 0);
        last.add(h);
      }
      return new RnnOutput(x, Tensor.stack(last, 0));
    }
  }

  static final class RNNModel extends Model {
    final Dropout drop;
    final Embedding encoder;
    final RnnTanh rnn;
    final Linear decoder;
    final int nhid;
    final int nlayers;

    RNNModel(int ntoken, int ninp, int nhid, int nlayers, double dropout) {
      drop = new Dropout(dropout);
      encoder = new Embedding(ntoken, ninp);
      rnn = new RnnTanh(ninp, nhid, nlayers);
      decoder = new Linear(nhid, ntoken);
      this.nhid = nhid;
      this.nlayers = nlayers;
      try (Autograd.Scope ignored = Autograd.noGrad()) { // init_weights
        encoder.weight().copyFrom(Tensor.rand(encoder.weight().shape()).mul(0.2).sub(0.1));
        decoder.bias().fill(0);
        decoder.weight().copyFrom(Tensor.rand(decoder.weight().shape()).mul(0.2).sub(0.1));
      }
    }

    RnnOutput forward(Tensor input, Tensor hidden) {
      Tensor emb = drop.forward(encoder.forward(input));
      RnnOutput out = rnn.forward(emb, hidden);
      Tensor output = drop.forward(out.output());
      Tensor decoded = decoder.forward(output.view(output.size(0) * output.size(1), output.size(2)));
      return new RnnOutput(decoded.view(output.size(0), output.size(1), decoded.size(1)), out.hidden());
    }

    Tensor initHidden(int bsz) {
      Parameter weight = parameters().get(0);
      return Tensor.zeros(Shape.of(nlayers, bsz, nhid), weight.dtype(), weight.device());
    }
  }

  static Args args;
  static RNNModel model;
  static CrossEntropyLoss criterion;
  static int ntokens;
  static int evalBatchSize = 10;
  static double lr;
  static Tensor trainData;

  static Tensor batchify(Tensor data, int bsz) {
    long nbatch = data.size(0) / bsz;
    data = data.narrow(0, 0, nbatch * bsz);
    data = data.view(bsz, -1).t().contiguous();
    if (args.cuda()) {
      data = data.cuda();
    }
    return data;
  }

  static Tensor repackageHidden(Tensor h) {
    return h.detach();
  }

  record DataAndTarget(Tensor data, Tensor target) {}

  static DataAndTarget getBatch(Tensor source, int i) {
    long seqLen = Math.min(args.bptt(), source.size(0) - 1 - i);
    Tensor data = source.slice(0, i, i + seqLen);
    Tensor target = source.slice(0, i + 1, i + 1 + seqLen).reshape(-1);
    return new DataAndTarget(data, target);
  }

  static double evaluate(Tensor dataSource) {
    model.eval();
    Tensor totalLoss = Tensor.scalar(0.0);
    Tensor hidden = model.initHidden(evalBatchSize);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (int i = 0; i < dataSource.size(0) - 1; i += args.bptt()) {
        DataAndTarget b = getBatch(dataSource, i);
        RnnOutput out = model.forward(b.data(), hidden);
        hidden = out.hidden();
        Tensor outputFlat = out.output().view(-1, ntokens);
        totalLoss = totalLoss.add(criterion.forward(outputFlat, b.target()).detach().mul(b.data().size(0)));
        hidden = repackageHidden(hidden);
      }
    }
    return totalLoss.item() / dataSource.size(0);
  }

  static void train(int epoch) {
    model.train();
    Tensor totalLoss = Tensor.scalar(0.0);
    Tensor hidden = model.initHidden((int) trainData.size(1));
    int batch = 0;
    for (int i = 0; i < trainData.size(0) - 1; i += args.bptt(), batch++) {
      DataAndTarget b = getBatch(trainData, i);
      hidden = repackageHidden(hidden);
      model.zeroGrad();
      RnnOutput out = model.forward(b.data(), hidden);
      hidden = out.hidden();
      Tensor loss = criterion.forward(out.output().view(-1, ntokens), b.target());
      loss.backward();
      Gradients.clipNorm(model.parameters(), args.clip());
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (Parameter p : model.parameters()) {
          p.addi(p.grad(), -lr);
        }
      }
      totalLoss = totalLoss.add(loss.detach());
      if (batch % args.logInterval() == 0 && batch > 0) {
        double curLoss = totalLoss.item() / args.logInterval();
        System.out.printf("| epoch %3d | %5d batches | lr %02.2f | loss %5.2f | ppl %8.2f%n", epoch, batch, lr,
            curLoss, Math.exp(curLoss));
        totalLoss = Tensor.scalar(0.0);
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    args = new Args(device.isCuda(), 5, 0.25, 2);
    ntokens = 30;
    trainData = batchify(Tensor.randint(0, ntokens, Shape.of(400)), 4);
    Tensor valData = batchify(Tensor.randint(0, ntokens, Shape.of(200)), evalBatchSize);
    model = new RNNModel(ntokens, 16, 16, 2, 0.2);
    if (args.cuda()) {
      model.toDevice(Device.cuda());
    }
    criterion = new CrossEntropyLoss();
    lr = 20;
    for (int epoch = 1; epoch <= 2; epoch++) {
      train(epoch);
      double valLoss = evaluate(valData);
      System.out.printf("| end of epoch %3d | valid loss %5.2f | valid ppl %8.2f%n", epoch, valLoss, Math.exp(valLoss));
    }
  }
}
