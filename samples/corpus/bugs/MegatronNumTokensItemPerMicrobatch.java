package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Megatron-LM {@code forward_backward_no_pipelining}: for each microbatch the schedule runs {@code
 * forward_step} (which returns the loss and the number of tokens it covered, computed on the GPU
 * from the loss mask) and then {@code backward_step}, summing the token counts for the
 * per-token loss scaling at the end.
 *
 * <p>Source: https://github.com/NVIDIA/Megatron-LM/issues/1403 (fixed by an internal MR, commit
 * linked in the issue)
 *
 * <p>Bug: {@code total_num_tokens += num_tokens.item()} between the forward and backward of every
 * microbatch copies the count to the host and blocks the CPU until the GPU catches up; removing
 * the {@code item()} (keeping the sum on the device) made that time disappear from the profile.
 *
 * <p>Outcome: completes (costs time)
 */
public final class MegatronNumTokensItemPerMicrobatch {
  private MegatronNumTokensItemPerMicrobatch() {}

  static final class GptModel extends Model {
    final Embedding embedding = new Embedding(100, 32);
    final Linear outputLayer = new Linear(32, 100);

    Tensor forward(Tensor tokens) {
      return outputLayer.forward(embedding.forward(tokens).tanh());
    }
  }

  /** pretrain_gpt.py loss_func: masked token loss, plus the token count. */
  static Tensor[] lossFunc(Tensor lossMask, Tensor logits, Tensor labels) {
    Tensor losses = logits.logSoftmax(-1).gather(2, labels.unsqueeze(2)).squeeze(2).neg();
    Tensor loss = losses.mul(lossMask).sum();
    Tensor numTokens = lossMask.sum().to(DType.INT64);
    return new Tensor[] {loss, numTokens};
  }

  static Tensor[] forwardStep(Iterator<Tensor[]> dataIterator, GptModel model) {
    Tensor[] batch = dataIterator.next();
    Tensor tokens = batch[0];
    Tensor labels = batch[1];
    Tensor lossMask = batch[2];
    Tensor outputTensor = model.forward(tokens);
    return lossFunc(lossMask, outputTensor, labels);
  }

  static void backwardStep(Tensor outputTensor) {
    outputTensor.backward();
  }

  /** schedules.py forward_backward_no_pipelining. */
  static double forwardBackwardNoPipelining(Iterator<Tensor[]> dataIterator, GptModel model, int numMicrobatches) {
    long totalNumTokens = 0;
    for (int i = 0; i < numMicrobatches; i++) {
      Tensor[] out = forwardStep(dataIterator, model);
      Tensor outputTensor = out[0];
      Tensor numTokens = out[1];
      totalNumTokens += numTokens.itemAsLong(); // bug: in-method
      backwardStep(outputTensor);
    }
    return totalNumTokens;
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    GptModel model = new GptModel();
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters(), 1e-4);
    int numMicrobatches = 4;
    for (int iteration = 0; iteration < 2; iteration++) {
      List<Tensor[]> microbatches = new ArrayList<>();
      for (int m = 0; m < numMicrobatches; m++) {
        Tensor tokens = Tensor.randint(0, 100, Shape.of(2, 16), device);
        Tensor labels = Tensor.randint(0, 100, Shape.of(2, 16), device);
        Tensor lossMask = Tensor.rand(Shape.of(2, 16), device).gt(0.1).to(DType.FLOAT32);
        microbatches.add(new Tensor[] {tokens, labels, lossMask});
      }
      optimizer.zeroGrad();
      double totalNumTokens = forwardBackwardNoPipelining(microbatches.iterator(), model, numMicrobatches);
      for (Parameter p : model.parameters()) {
        p.grad().divi(totalNumTokens);
      }
      optimizer.step();
    }
  }
}
