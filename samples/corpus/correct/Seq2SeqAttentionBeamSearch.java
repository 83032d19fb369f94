package corpus.correct;

import dev.ondevice.Autograd;
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
import java.util.Comparator;
import java.util.List;

/**
 * An attention seq2seq translator with beam search: every tensor the search makes is created on
 * {@code model.device} (an attribute of the Seq2Seq module), the beams are Python tuples holding
 * each hypothesis's hidden and cell tensors, and the scores are host floats read with
 * {@code .item()}.
 *
 * <p>Source: https://github.com/maharshijani05/Encoder-Decoder-with-Attention-Mechanism/blob/a4569cb25a2835d9db24ca9e79257e26e04924e5/utils.py
 * (model: model.py in the same repository)
 *
 * <p>Ported: Encoder, Attention, Decoder and Seq2Seq with its {@code device} attribute and the
 * teacher-forced forward ({@code torch.zeros(...).to(self.device)}), and beam_search_translate
 * as written (the beams a list of (seq, score, hidden, cell)). Left out: vocabularies and
 * tokenisation (token ids directly), train.py's data pipeline. The API has no LSTM nor topk: a
 * one-layer LSTM cell is written out, and topk is k rounds of argmax on the device; the
 * in-place {@code outputs[t] = output} is a list stacked at the end.
 *
 * <p>Outcome: completes
 */
public final class Seq2SeqAttentionBeamSearch {
  private Seq2SeqAttentionBeamSearch() {}

  record Beam(List<Long> seq, double score, Tensor hidden, Tensor cell) {}

  static final class Lstm extends Model {
    final Linear ih, hh;
    final int hid;

    Lstm(int in, int hid) { ih = new Linear(in, 4 * hid); hh = new Linear(hid, 4 * hid); this.hid = hid; }

    Tensor[] forward(Tensor input, Tensor hidden, Tensor cell) {
      Tensor h = hidden.select(0, 0), c = cell.select(0, 0);
      List<Tensor> outputs = new ArrayList<>();
      for (long t = 0; t < input.size(0); t++) {
        Tensor g = ih.forward(input.select(0, t)).add(hh.forward(h));
        c = g.narrow(1, hid, hid).sigmoid().mul(c).add(g.narrow(1, 0, hid).sigmoid().mul(g.narrow(1, 2L * hid, hid).tanh()));
        h = g.narrow(1, 3L * hid, hid).sigmoid().mul(c.tanh());
        outputs.add(h);
      }
      return new Tensor[] {Tensor.stack(outputs), h.unsqueeze(0), c.unsqueeze(0)};
    }
  }

  static final class Encoder extends Model {
    final Embedding embedding; final Lstm rnn; final Dropout dropout;

    Encoder(int inputDim, int embDim, int hidDim, double dropout) {
      embedding = new Embedding(inputDim, embDim); rnn = new Lstm(embDim, hidDim); this.dropout = new Dropout(dropout);
    }

    Tensor[] forward(Tensor src) {
      Tensor embedded = dropout.forward(embedding.forward(src));
      long batch = src.size(1);
      Tensor zeros = Tensor.zeros(Shape.of(1, batch, rnn.hid), embedded.dtype(), embedded.device());
      return rnn.forward(embedded, zeros, zeros);
    }
  }

  static final class Attention extends Model {
    final Linear attn; final Linear v;

    Attention(int hidDim) { attn = new Linear(hidDim * 2, hidDim); v = new Linear(hidDim, 1, false, Device.cpu()); }

    Tensor forward(Tensor hidden, Tensor encoderOutputs) {
      long srcLen = encoderOutputs.size(0);
      Tensor h = hidden.unsqueeze(1).expand(hidden.size(0), srcLen, hidden.size(1));
      Tensor energy = attn.forward(Tensor.cat(List.of(h, encoderOutputs.permute(1, 0, 2)), 2)).tanh();
      return v.forward(energy).squeeze(2).softmax(1);
    }
  }

  static final class Decoder extends Model {
    final int outputDim; final Attention attention; final Embedding embedding;
    final Lstm rnn; final Linear fcOut; final Dropout dropout;

    Decoder(int outputDim, int embDim, int hidDim, double dropout, Attention attention) {
      this.outputDim = outputDim; this.attention = attention; embedding = new Embedding(outputDim, embDim);
      rnn = new Lstm(embDim + hidDim, hidDim); fcOut = new Linear(embDim + hidDim * 2, outputDim);
      this.dropout = new Dropout(dropout);
    }

    Tensor[] forward(Tensor input, Tensor hidden, Tensor cell, Tensor encoderOutputs) {
      Tensor embedded = dropout.forward(embedding.forward(input.unsqueeze(0)));
      Tensor a = attention.forward(hidden.select(0, -1), encoderOutputs).unsqueeze(1);
      Tensor weighted = a.matmul(encoderOutputs.permute(1, 0, 2)).permute(1, 0, 2);
      Tensor[] r = rnn.forward(Tensor.cat(List.of(embedded, weighted), 2), hidden, cell);
      Tensor prediction = fcOut.forward(Tensor.cat(List.of(r[0].squeeze(0), weighted.squeeze(0), embedded.squeeze(0)), 1));
      return new Tensor[] {prediction, r[1], r[2]};
    }
  }

  static final class Seq2Seq extends Model {
    final Encoder encoder; final Decoder decoder; final Device device;

    Seq2Seq(Encoder encoder, Decoder decoder, Device device) { this.encoder = encoder; this.decoder = decoder; this.device = device; }

    Tensor forward(Tensor src, Tensor trg, double teacherForcingRatio) {
      long batchSize = trg.size(1), trgLen = trg.size(0);
      List<Tensor> outputs = new ArrayList<>(List.of(Tensor.zeros(Shape.of(batchSize, decoder.outputDim)).to(device)));  // costs time: CreateThenMove
      Tensor[] enc = encoder.forward(src);
      Tensor hidden = enc[1], cell = enc[2], input = trg.select(0, 0);
      for (long t = 1; t < trgLen; t++) {
        Tensor[] out = decoder.forward(input, hidden, cell, enc[0]);
        hidden = out[1]; cell = out[2];
        outputs.add(out[0]);
        input = Tensor.rand(1).item() < teacherForcingRatio ? trg.select(0, t) : out[0].argmax(1);
      }
      return Tensor.stack(outputs);
    }
  }

  /** torch.topk(x, k) on a [1, V] row, as k rounds of argmax on x's device. */
  static Tensor[] topk(Tensor x, int k) {
    List<Tensor> values = new ArrayList<>(), indices = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      Tensor idx = x.argmax(1, true);
      values.add(x.gather(1, idx)); indices.add(idx);
      x = x.maskedFill(Tensor.oneHot(idx.squeeze(1), (int) x.size(1)).eq(1), Double.NEGATIVE_INFINITY);
    }
    return new Tensor[] {Tensor.cat(values, 1), Tensor.cat(indices, 1)};
  }

  static List<Long> beamSearchTranslate(long[] sentence, Seq2Seq model, long sos, long eos, int beamWidth, int maxLen) {
    model.eval();
    long[] indices = new long[sentence.length + 2];
    indices[0] = sos; indices[indices.length - 1] = eos;
    for (int i = 0; i < sentence.length; i++) { indices[i + 1] = sentence[sentence.length - 1 - i]; }
    Tensor srcTensor = Tensor.of(indices).unsqueeze(1).to(model.device);
    try (Autograd.Scope s = Autograd.noGrad()) {
      Tensor[] enc = model.encoder.forward(srcTensor);
      List<Beam> beams = new ArrayList<>(List.of(new Beam(List.of(sos), 0.0, enc[1], enc[2])));
      for (int step = 0; step < maxLen; step++) {
        List<Beam> newBeams = new ArrayList<>();
        for (Beam beam : beams) {
          Tensor inputTok = Tensor.of(new long[] {beam.seq().get(beam.seq().size() - 1)}, Shape.of(1), model.device);
          Tensor[] out = model.decoder.forward(inputTok, beam.hidden(), beam.cell(), enc[0]);
          Tensor[] top = topk(out[0].logSoftmax(1), beamWidth);
          for (int i = 0; i < beamWidth; i++) {
            long nextTok = top[1].get(0, i).itemAsLong();  // costs time: HostSyncInLoop
            double nextScore = beam.score() + top[0].get(0, i).item();  // costs time: HostSyncInLoop
            List<Long> newSeq = new ArrayList<>(beam.seq()); newSeq.add(nextTok);
            newBeams.add(new Beam(newSeq, nextScore, out[1], out[2]));
          }
        }
        newBeams.sort(Comparator.comparingDouble(Beam::score).reversed());
        beams = newBeams.subList(0, beamWidth);
        if (beams.stream().allMatch(b -> b.seq().get(b.seq().size() - 1) == eos)) { break; }
      }
      return beams.get(0).seq();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    int vocab = 16, emb = 8, hid = 12;
    Seq2Seq model = new Seq2Seq(new Encoder(vocab, emb, hid, 0.1), new Decoder(vocab, emb, hid, 0.1, new Attention(hid)), device);
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters(), 1e-3);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    for (int step = 0; step < 2; step++) {
      model.train();
      Tensor src = Tensor.randint(3, vocab, Shape.of(7, 4), device), trg = Tensor.randint(3, vocab, Shape.of(6, 4), device);
      Tensor output = model.forward(src, trg, 0.5);
      Tensor loss = criterion.forward(output.slice(0, 1, 6).reshape(-1, vocab), trg.slice(0, 1, 6).reshape(-1));
      optimizer.zeroGrad(); loss.backward(); optimizer.step();
    }
    System.out.println("beam search: " + beamSearchTranslate(new long[] {5, 9, 4, 7}, model, 1, 2, 3, 6));
  }
}
