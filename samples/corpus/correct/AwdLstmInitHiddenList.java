package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Gradients;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.List;

/**
 * AWD-LSTM's language model: one LSTM per layer, the hidden state a list of (h, c) pairs made by
 * {@code init_hidden} with {@code weight.new(...).zero_()} from the first parameter, locked
 * dropout masks drawn with {@code x.data.new(...)} on the input's device, and the activation
 * (AR) and temporal activation (TAR) penalties added to the loss.
 *
 * <p>Source: https://github.com/salesforce/awd-lstm-lm/blob/1b3294ddd85ed50a6d0632eeee6b55e95e659146/model.py (with utils.py,
 * locked_dropout.py and the train loop of main.py in the same repository)
 *
 * <p>Ported: RNNModel for 'LSTM' (lockdrop, encoder, the per-layer rnns, decoder, init_weights,
 * forward with return_h, init_hidden returning a list of (h, c)), LockedDropout, and from
 * utils.py repackage_hidden, batchify ({@code if args.cuda and torch.cuda.is_available():
 * data.cuda()}) and get_batch; a train loop with AR/TAR and clipping, {@code model.cuda()} when
 * args.cuda. Left out: embedded_dropout, WeightDrop, QRNN, weight tying, the variable BPTT length,
 * SplitCrossEntropyLoss (a CrossEntropyLoss on the decoded output instead), ASGD and saving.
 * nn.LSTM is not in the API: each layer is an LSTM cell written out with two Linear layers.
 *
 * <p>Outcome: completes
 */
public final class AwdLstmInitHiddenList {
  private AwdLstmInitHiddenList() {}

  record Hidden(Tensor h, Tensor c) {}

  record Args(boolean cuda, int bptt, double alpha, double beta, double clip) {}

  static final class Lstm extends Model {
    final Linear ih, hh;
    final int hidden;

    Lstm(int in, int hidden) {
      ih = new Linear(in, 4 * hidden); hh = new Linear(hidden, 4 * hidden); this.hidden = hidden;
    }

    Object[] forward(Tensor input, Hidden state) {
      Tensor h = state.h().select(0, 0), c = state.c().select(0, 0);
      List<Tensor> outputs = new ArrayList<>();
      for (long t = 0; t < input.size(0); t++) {
        Tensor g = ih.forward(input.select(0, t)).add(hh.forward(h));
        Tensor i = g.narrow(1, 0, hidden).sigmoid(), f = g.narrow(1, hidden, hidden).sigmoid();
        Tensor gg = g.narrow(1, 2L * hidden, hidden).tanh(), o = g.narrow(1, 3L * hidden, hidden).sigmoid();
        c = f.mul(c).add(i.mul(gg));
        h = o.mul(c.tanh());
        outputs.add(h);
      }
      return new Object[] {Tensor.stack(outputs), new Hidden(h.unsqueeze(0), c.unsqueeze(0))};
    }
  }

  static final class LockedDropout extends Model {
    Tensor forward(Tensor x, double dropout) {
      if (!isTraining() || dropout == 0) {
        return x;
      }
      Tensor m = Tensor.bernoulli(Tensor.full(Shape.of(1, x.size(1), x.size(2)), 1 - dropout, x.dtype(), x.device()));
      Tensor mask = m.div(1 - dropout);
      return mask.expandAs(x).mul(x);
    }
  }

  static final class RNNModel extends Model {
    final LockedDropout lockdrop = new LockedDropout();
    final Embedding encoder;
    final List<Lstm> rnns = new ArrayList<>();
    final Linear decoder;
    final int ninp, nhid, nlayers;
    final double dropout, dropouth, dropouti;

    RNNModel(int ntoken, int ninp, int nhid, int nlayers, double dropout, double dropouth, double dropouti) {
      encoder = new Embedding(ntoken, ninp);
      for (int l = 0; l < nlayers; l++) {
        rnns.add(new Lstm(l == 0 ? ninp : nhid, l != nlayers - 1 ? nhid : ninp));
      }
      decoder = new Linear(nhid, ntoken);
      initWeights();
      this.ninp = ninp; this.nhid = nhid; this.nlayers = nlayers;
      this.dropout = dropout; this.dropouth = dropouth; this.dropouti = dropouti;
    }

    void initWeights() {
      try (Autograd.Scope s = Autograd.noGrad()) {
        encoder.weight().copyFrom(Tensor.rand(encoder.weight().shape()).mul(0.2).sub(0.1));
        decoder.bias().fill(0);
        decoder.weight().copyFrom(Tensor.rand(decoder.weight().shape()).mul(0.2).sub(0.1));
      }
    }

    /** Returns result, hidden, raw_outputs, outputs (the last two as return_h=True gives them). */
    Object[] forward(Tensor input, List<Hidden> hidden) {
      Tensor emb = lockdrop.forward(encoder.forward(input), dropouti);
      Tensor rawOutput = emb;
      List<Hidden> newHidden = new ArrayList<>();
      List<Tensor> rawOutputs = new ArrayList<>(), outputs = new ArrayList<>();
      for (int l = 0; l < rnns.size(); l++) {
        Object[] r = rnns.get(l).forward(rawOutput, hidden.get(l));
        rawOutput = (Tensor) r[0];
        newHidden.add((Hidden) r[1]);
        rawOutputs.add(rawOutput);
        if (l != nlayers - 1) {
          rawOutput = lockdrop.forward(rawOutput, dropouth);
          outputs.add(rawOutput);
        }
      }
      Tensor output = lockdrop.forward(rawOutput, dropout);
      outputs.add(output);
      Tensor decoded = decoder.forward(output.view(output.size(0) * output.size(1), output.size(2)));
      return new Object[] {decoded.view(output.size(0), output.size(1), decoded.size(1)), newHidden, rawOutputs, outputs};
    }

    List<Hidden> initHidden(int bsz) {
      Parameter weight = parameters().get(0);
      List<Hidden> hidden = new ArrayList<>();
      for (int l = 0; l < nlayers; l++) {
        long size = l != nlayers - 1 ? nhid : ninp;
        hidden.add(new Hidden(Tensor.zeros(Shape.of(1, bsz, size), weight.dtype(), weight.device()),
            Tensor.zeros(Shape.of(1, bsz, size), weight.dtype(), weight.device())));
      }
      return hidden;
    }
  }

  static List<Hidden> repackageHidden(List<Hidden> h) {
    List<Hidden> out = new ArrayList<>();
    for (Hidden v : h) {
      out.add(new Hidden(v.h().detach(), v.c().detach()));
    }
    return out;
  }

  static Tensor batchify(Tensor data, int bsz, Args args) {
    long nbatch = data.size(0) / bsz;
    data = data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous();
    if (args.cuda() && dev.ondevice.Cuda.isAvailable()) {
      data = data.cuda();
    }
    return data;
  }

  static Tensor[] getBatch(Tensor source, long i, Args args) {
    long seqLen = Math.min(args.bptt(), source.size(0) - 1 - i);
    return new Tensor[] {source.slice(0, i, i + seqLen), source.slice(0, i + 1, i + 1 + seqLen).reshape(-1)};
  }

  /** Runs the program with small random data on {@code device}. */
  @SuppressWarnings("unchecked")
  public static void run(Device device) throws Exception {
    Args args = new Args(device.isCuda(), 5, 2, 1, 0.25);
    int ntokens = 30, batchSize = 4;
    Tensor trainData = batchify(Tensor.randint(0, ntokens, Shape.of(61)), batchSize, args);
    RNNModel model = new RNNModel(ntokens, 12, 12, 3, 0.4, 0.3, 0.65);
    if (args.cuda()) {
      model.toDevice(Device.cuda());
    }
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Sgd optimizer = new Sgd(model.parameters(), 30).weightDecay(1.2e-6);
    model.train();
    Tensor totalLoss = Tensor.scalar(0.0);
    List<Hidden> hidden = model.initHidden(batchSize);
    for (long i = 0; i < trainData.size(0) - 1; i += args.bptt()) {
      Tensor[] batch = getBatch(trainData, i, args);
      hidden = repackageHidden(hidden);
      optimizer.zeroGrad();
      Object[] out = model.forward(batch[0], hidden);
      hidden = (List<Hidden>) out[1];
      Tensor rawLoss = criterion.forward(((Tensor) out[0]).view(-1, ntokens), batch[1]);
      Tensor loss = rawLoss;
      List<Tensor> droppedRnnHs = (List<Tensor>) out[3], rnnHs = (List<Tensor>) out[2];
      loss = loss.add(droppedRnnHs.get(droppedRnnHs.size() - 1).pow(2).mean().mul(args.alpha()));
      Tensor rnnH = rnnHs.get(rnnHs.size() - 1);
      long t = rnnH.size(0);
      loss = loss.add(rnnH.slice(0, 1, t).sub(rnnH.slice(0, 0, t - 1)).pow(2).mean().mul(args.beta()));
      loss.backward();
      Gradients.clipNorm(model.parameters(), args.clip());
      optimizer.step();
      totalLoss = totalLoss.add(rawLoss.detach());
    }
    System.out.printf("train loss %.3f%n", totalLoss.item());
  }
}
