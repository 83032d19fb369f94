package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import dev.ondevice.optim.Gradients;
import java.util.ArrayList;
import java.util.List;

/**
 * The chatbot tutorial's seq2seq training step: inputs, targets and the mask go to the device,
 * while the lengths are kept on the CPU for packing ("Lengths for RNN packing should always be
 * on the CPU"); the encoder packs the padded batch with them.
 *
 * <p>Source: https://pytorch.org/tutorials/beginner/chatbot_tutorial.html
 *
 * <p>Ported: EncoderRNN (shared embedding, bidirectional GRU over the packed batch, the two
 * directions summed), LuongAttnDecoderRNN with 'dot' attention, maskNLLLoss with its
 * {@code loss.to(device)} and {@code nTotal.item()}, and train() with its moves, including
 * {@code lengths = lengths.to("cpu")}, teacher forcing, clipping and the two optimizers. Left out:
 * the corpus and vocabulary code (random padded batches sorted by length instead), the
 * non-teacher-forcing branch, greedy search. The API has no GRU nor packing: a GRU cell is written
 * out, and packing is emulated from the CPU lengths (at step t only the first batch_sizes[t]
 * sequences advance; padded outputs are zero). {@code masked_select(mask).mean()} is a masked
 * sum divided by the mask's count.
 *
 * <p>Outcome: completes
 */
public final class ChatbotTutorialCpuLengths {
  private ChatbotTutorialCpuLengths() {}

  static Device device;
  static final int SOS_TOKEN = 1;

  static final class GruCell extends Model {
    final Linear x2h, h2h;
    final int hidden;

    GruCell(int in, int hidden) {
      x2h = new Linear(in, 3 * hidden); h2h = new Linear(hidden, 3 * hidden); this.hidden = hidden;
    }

    Tensor forward(Tensor x, Tensor h) {
      Tensor gx = x2h.forward(x), gh = h2h.forward(h);
      Tensor r = gx.narrow(1, 0, hidden).add(gh.narrow(1, 0, hidden)).sigmoid();
      Tensor z = gx.narrow(1, hidden, hidden).add(gh.narrow(1, hidden, hidden)).sigmoid();
      Tensor n = gx.narrow(1, 2L * hidden, hidden).add(r.mul(gh.narrow(1, 2L * hidden, hidden))).tanh();
      return z.rsub(1.0).mul(n).add(z.mul(h));
    }
  }

  static final class EncoderRNN extends Model {
    final int hiddenSize;
    final Embedding embedding;
    final GruCell forwardGru, backwardGru;

    EncoderRNN(int hiddenSize, Embedding embedding) {
      this.hiddenSize = hiddenSize; this.embedding = embedding;
      forwardGru = new GruCell(hiddenSize, hiddenSize); backwardGru = new GruCell(hiddenSize, hiddenSize);
    }

    /** One direction over the packed batch: at step t only the first batchSizes[t] rows advance. */
    Tensor[] direction(GruCell cell, Tensor embedded, long[] batchSizes, boolean reverse) {
      long steps = embedded.size(0), batch = embedded.size(1);
      Tensor h = Tensor.zeros(Shape.of(batch, hiddenSize), embedded.dtype(), embedded.device());
      Tensor[] outputs = new Tensor[(int) steps];
      for (long s = 0; s < steps; s++) {
        int t = (int) (reverse ? steps - 1 - s : s);
        long bs = batchSizes[t];
        Tensor active = cell.forward(embedded.select(0, t).narrow(0, 0, bs), h.narrow(0, 0, bs));
        h = bs == batch ? active : Tensor.cat(List.of(active, h.narrow(0, bs, batch - bs)));
        outputs[t] = bs == batch ? active : Tensor.cat(List.of(active, Tensor.zerosLike(h.narrow(0, bs, batch - bs))));
      }
      return new Tensor[] {Tensor.stack(List.of(outputs)), h};
    }

    Tensor[] forward(Tensor inputSeq, Tensor inputLengths) {
      Tensor embedded = embedding.forward(inputSeq);
      long[] lengths = inputLengths.toLongArray();
      long[] batchSizes = new long[(int) inputSeq.size(0)];
      for (int t = 0; t < batchSizes.length; t++) {
        for (long len : lengths) { batchSizes[t] += len > t ? 1 : 0; }
      }
      Tensor[] fwd = direction(forwardGru, embedded, batchSizes, false);
      Tensor[] bwd = direction(backwardGru, embedded, batchSizes, true);
      return new Tensor[] {fwd[0].add(bwd[0]), Tensor.stack(List.of(fwd[1], bwd[1]))};
    }
  }

  static final class LuongAttnDecoderRNN extends Model {
    final Embedding embedding;
    final Dropout embeddingDropout = new Dropout(0.1);
    final GruCell gru;
    final Linear concat, out;
    final int nLayers = 1;

    LuongAttnDecoderRNN(Embedding embedding, int hiddenSize, int outputSize) {
      this.embedding = embedding; gru = new GruCell(hiddenSize, hiddenSize);
      concat = new Linear(hiddenSize * 2, hiddenSize); out = new Linear(hiddenSize, outputSize);
    }

    Tensor[] forward(Tensor inputStep, Tensor lastHidden, Tensor encoderOutputs) {
      Tensor embedded = embeddingDropout.forward(embedding.forward(inputStep)).squeeze(0);
      Tensor rnnOutput = gru.forward(embedded, lastHidden.select(0, 0));
      Tensor attnWeights = rnnOutput.unsqueeze(0).mul(encoderOutputs).sum(2).t().softmax(1).unsqueeze(1);
      Tensor context = attnWeights.matmul(encoderOutputs.transpose(0, 1)).squeeze(1);
      Tensor concatOutput = concat.forward(Tensor.cat(List.of(rnnOutput, context), 1)).tanh();
      return new Tensor[] {out.forward(concatOutput).softmax(1), rnnOutput.unsqueeze(0)};
    }
  }

  static Object[] maskNLLLoss(Tensor inp, Tensor target, Tensor mask) {
    Tensor nTotal = mask.to(DType.FLOAT32).sum();
    Tensor crossEntropy = inp.gather(1, target.view(-1, 1)).squeeze(1).log().neg();
    Tensor loss = crossEntropy.mul(mask.to(DType.FLOAT32)).sum().div(nTotal);
    loss = loss.to(device);
    return new Object[] {loss, nTotal.item()};  // costs time: HostSyncInLoop
  }

  static double train(Tensor inputVariable, Tensor lengths, Tensor targetVariable, Tensor mask, int maxTargetLen,
      EncoderRNN encoder, LuongAttnDecoderRNN decoder, Adam encoderOptimizer, Adam decoderOptimizer, int batchSize,
      double clip) {
    encoderOptimizer.zeroGrad();
    decoderOptimizer.zeroGrad();
    inputVariable = inputVariable.to(device);
    targetVariable = targetVariable.to(device);
    mask = mask.to(device);
    // Lengths for RNN packing should always be on the CPU
    lengths = lengths.to(Device.cpu());
    Tensor loss = Tensor.scalar(0.0);
    List<Double> printLosses = new ArrayList<>();
    double nTotals = 0;
    Tensor[] enc = encoder.forward(inputVariable, lengths);
    long[] sos = new long[batchSize];
    java.util.Arrays.fill(sos, SOS_TOKEN);
    Tensor decoderInput = Tensor.of(sos, 1, batchSize).to(device);  // costs time: CreateThenMove
    Tensor decoderHidden = enc[1].narrow(0, 0, decoder.nLayers);
    for (int t = 0; t < maxTargetLen; t++) {
      Tensor[] dec = decoder.forward(decoderInput, decoderHidden, enc[0]);
      decoderHidden = dec[1];
      decoderInput = targetVariable.select(0, t).view(1, -1);
      Object[] maskLoss = maskNLLLoss(dec[0], targetVariable.select(0, t), mask.select(0, t));
      loss = loss.add((Tensor) maskLoss[0]);
      printLosses.add(((Tensor) maskLoss[0]).item() * (Double) maskLoss[1]);  // costs time: HostSyncInLoop
      nTotals += (Double) maskLoss[1];
    }
    loss.backward();
    Gradients.clipNorm(encoder.parameters(), clip);
    Gradients.clipNorm(decoder.parameters(), clip);
    encoderOptimizer.step();
    decoderOptimizer.step();
    return printLosses.stream().mapToDouble(Double::doubleValue).sum() / nTotals;
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    ChatbotTutorialCpuLengths.device = device;
    int vocab = 20, hidden = 8, batchSize = 4, maxLen = 6, maxTargetLen = 5;
    Embedding embedding = new Embedding(vocab, hidden);
    EncoderRNN encoder = new EncoderRNN(hidden, embedding);
    LuongAttnDecoderRNN decoder = new LuongAttnDecoderRNN(embedding, hidden, vocab);
    encoder.toDevice(device);
    decoder.toDevice(device);
    Adam encoderOptimizer = new Adam(encoder.parameters(), 1e-3);
    Adam decoderOptimizer = new Adam(decoder.parameters(), 5e-3);
    for (int iteration = 0; iteration < 2; iteration++) {
      Tensor lengths = Tensor.of(6, 5, 3, 2);
      Tensor tokens = Tensor.randint(3, vocab, Shape.of(maxLen, batchSize));
      Tensor inputVariable = tokens.mul(Tensor.arange(maxLen).unsqueeze(1).lt(lengths.unsqueeze(0)).to(DType.INT64));
      Tensor targetVariable = Tensor.randint(3, vocab, Shape.of(maxTargetLen, batchSize));
      Tensor mask = Tensor.arange(maxTargetLen).unsqueeze(1).lt(Tensor.of(5, 4, 4, 2).unsqueeze(0));
      double loss = train(inputVariable, lengths, targetVariable, mask, maxTargetLen, encoder, decoder,
          encoderOptimizer, decoderOptimizer, batchSize, 50.0);
      System.out.printf("iteration %d loss %.4f%n", iteration, loss);
    }
  }
}
