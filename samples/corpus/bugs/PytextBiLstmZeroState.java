package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * PyText's {@code BiLSTM} representation layer inside a document classifier: word embeddings, a
 * dropout, a bidirectional LSTM that starts from a zero state when the caller gives none (added so
 * that {@code torch.jit} tracing does not fix the batch size), max pooling over time and a linear
 * decoder, trained with the model on the GPU when {@code cuda_utils.CUDA_ENABLED}.
 *
 * <p>Source: https://github.com/facebookresearch/pytext/pull/297 (commit 344fddf, pytext/models/representations/bilstm.py)
 *
 * <p>Bug: {@code BiLSTM.forward} builds the zero state with {@code torch.zeros(num_layers *
 * num_directions, batch, lstm_dim)}, on the CPU, and feeds it to the LSTM whose weights and input
 * are on the GPU ("Input and hidden tensors are not at the same device"). The fix passes {@code
 * device=torch.cuda.current_device() if cuda_utils.CUDA_ENABLED else None}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class PytextBiLstmZeroState {
  private PytextBiLstmZeroState() {}

  /** {@code pytext.utils.cuda_utils}: whether the model and the batches live on the GPU. */
  static final class CudaUtils {
    static boolean CUDA_ENABLED = false;
  }

  record Config(double dropout, int lstmDim, int numLayers, boolean bidirectional) {}

  /** One direction of a one-layer {@code nn.LSTM} (batch first), written out as its gates. */
  static final class LstmDirection extends Model {
    final Linear ih;
    final Linear hh;
    final int hidden;
    final boolean reverse;

    LstmDirection(int in, int hidden, boolean reverse) {
      ih = new Linear(in, 4 * hidden);
      hh = new Linear(hidden, 4 * hidden);
      this.hidden = hidden;
      this.reverse = reverse;
    }

    /** Returns the outputs {@code [B, T, H]}, the last h and the last c. */
    Tensor[] forward(Tensor input, Tensor h, Tensor c) {
      long steps = input.size(1);
      Tensor[] outputs = new Tensor[(int) steps];
      for (long s = 0; s < steps; s++) {
        long t = reverse ? steps - 1 - s : s;
        Tensor g = ih.forward(input.select(1, t)).add(hh.forward(h)); // same bug
        Tensor i = g.narrow(1, 0, hidden).sigmoid();
        Tensor f = g.narrow(1, hidden, hidden).sigmoid();
        Tensor gg = g.narrow(1, 2L * hidden, hidden).tanh();
        Tensor o = g.narrow(1, 3L * hidden, hidden).sigmoid();
        c = f.mul(c).add(i.mul(gg));
        h = o.mul(c.tanh());
        outputs[(int) t] = h;
      }
      return new Tensor[] {Tensor.stack(List.of(outputs), 1), h, c};
    }
  }

  /** {@code nn.LSTM(embed_dim, lstm_dim, num_layers=1, bidirectional=True)}: states {@code [2, B, H]}. */
  static final class Lstm extends Model {
    final List<LstmDirection> directions = new ArrayList<>();

    Lstm(int in, int hidden, boolean bidirectional) {
      directions.add(new LstmDirection(in, hidden, false));
      if (bidirectional) {
        directions.add(new LstmDirection(in, hidden, true));
      }
    }

    Tensor[][] forward(Tensor input, Tensor[] states) {
      List<Tensor> outs = new ArrayList<>();
      List<Tensor> hs = new ArrayList<>();
      List<Tensor> cs = new ArrayList<>();
      for (int d = 0; d < directions.size(); d++) {
        Tensor[] r = directions.get(d).forward(input, states[0].select(0, d), states[1].select(0, d));
        outs.add(r[0]);
        hs.add(r[1]);
        cs.add(r[2]);
      }
      return new Tensor[][] {{Tensor.cat(outs, 2)}, {Tensor.stack(hs), Tensor.stack(cs)}};
    }
  }

  static final class BiLSTM extends Model {
    final Config config;
    final Dropout dropout;
    final Lstm lstm;
    final int representationDim;

    BiLSTM(Config config, int embedDim) {
      this.config = config;
      this.dropout = new Dropout(config.dropout());
      this.lstm = new Lstm(embedDim, config.lstmDim(), config.bidirectional());
      this.representationDim = config.lstmDim() * (config.bidirectional() ? 2 : 1);
    }

    /** Returns the representation {@code [B, T, 2H]} and the new (h, c), each {@code [B, 2, H]}. */
    Tensor[] forward(Tensor embeddedTokens, Tensor seqLengths, Tensor[] states) {
      embeddedTokens = dropout.forward(embeddedTokens);
      if (states != null) {
        // convert (h0, c0) from (bsz x num_layers*num_directions x nhid) to
        // (num_layers*num_directions x bsz x nhid)
        states = new Tensor[] {states[0].transpose(0, 1).contiguous(), states[1].transpose(0, 1).contiguous()};
      } else {
        // We need to send in a zero state that matches the batch size, because
        // torch.jit tracing currently traces this as constant.
        Tensor state = Tensor.zeros(Shape.of( // bug: in-method
            config.numLayers() * (config.bidirectional() ? 2 : 1),
            seqLengths.size(0), // batch size
            config.lstmDim()));
        states = new Tensor[] {state, state};
      }
      Tensor[][] out = lstm.forward(embeddedTokens, states); // same bug
      Tensor rep = out[0][0];
      // convert states back to (bsz x num_layers*num_directions x nhid)
      return new Tensor[] {rep, out[1][0].transpose(0, 1), out[1][1].transpose(0, 1)};
    }
  }

  /** A document classifier: embedding, BiLSTM representation, max pooling, linear decoder. */
  static final class DocModel extends Model {
    final Embedding embedding;
    final BiLSTM representation;
    final Linear decoder;

    DocModel(int vocab, int embedDim, int classes) {
      embedding = new Embedding(vocab, embedDim);
      representation = new BiLSTM(new Config(0.4, 16, 1, true), embedDim);
      decoder = new Linear(representation.representationDim, classes);
    }

    Tensor forward(Tensor tokens, Tensor seqLens) {
      Tensor[] rep = representation.forward(embedding.forward(tokens), seqLens, null);
      return decoder.forward(rep[0].max(1).values());
    }
  }

  public static void run(Device device) {
    CudaUtils.CUDA_ENABLED = device.isCuda();
    DocModel model = new DocModel(50, 12, 3);
    if (CudaUtils.CUDA_ENABLED) {
      model.toDevice(device);
    }
    Adam optimizer = new Adam(model.parameters(), 0.01);
    CrossEntropyLoss loss = new CrossEntropyLoss();
    for (int step = 0; step < 3; step++) {
      Tensor tokens = Tensor.randint(0, 50, Shape.of(4, 7), device);
      Tensor seqLens = Tensor.full(Shape.of(4), 7, dev.ondevice.DType.INT64, device);
      Tensor labels = Tensor.randint(0, 3, Shape.of(4), device);
      optimizer.zeroGrad();
      Tensor l = loss.forward(model.forward(tokens, seqLens), labels);
      l.backward();
      optimizer.step();
    }
    System.out.println("trained 3 steps");
  }
}
