package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.Reduction;
import dev.ondevice.optim.AdamW;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ms-swift's Megatron trainer with {@code --enable_channel_loss} and {@code padding_free}: several
 * documents are packed into one sequence (boundaries in {@code cu_seqlens}, a device tensor), and
 * {@code loss_func} of every micro-batch calls {@code _compute_channel_loss}, which loops over the
 * documents and adds each one's masked token losses to the loss of its data channel.
 *
 * <p>Source: https://github.com/modelscope/ms-swift/pull/9795
 *
 * <p>Bug: each iteration of the per-document loop forces GPU-to-CPU syncs: {@code slice(cu_seqlens[i],
 * cu_seqlens[i + 1])} converts two CUDA scalars with an implicit {@code item()} (and the boolean mask
 * index needs {@code nonzero}), so the cost grows with the number of documents in a pack (~113 us
 * each) and is paid for every micro-batch; the fix replaces the loop by one vectorized reduction.
 *
 * <p>Outcome: completes (costs time)
 */
public final class MsSwiftChannelLossPerDocumentSync {
  private MsSwiftChannelLossPerDocumentSync() {}

  static final class GptModel extends Model {
    final Embedding embedding = new Embedding(64, 32);
    final Linear outputLayer = new Linear(32, 64);

    Tensor forward(Tensor inputIds) {
      return outputLayer.forward(embedding.forward(inputIds).tanh());
    }
  }

  static final class MegatronTrainer {
    final Map<String, Tensor> channelLoss = new LinkedHashMap<>();
    final Map<String, Tensor> channelCount = new LinkedHashMap<>();
    final CrossEntropyLoss tokenLoss = new CrossEntropyLoss(Reduction.NONE);

    /**
     * _compute_channel_loss; the masked selection {@code losses[0, slice_][loss_mask[0, slice_]]} is
     * written as a masked sum and count.
     */
    void computeChannelLoss(Tensor losses, Tensor lossMask, Tensor cuSeqlens, List<String> channels) {
      for (int i = 0; i < channels.size(); i++) {
        long start = cuSeqlens.get(i).itemAsLong(); // bug: per-step
        long end = cuSeqlens.get(i + 1).itemAsLong(); // bug: per-step
        Tensor docLoss = losses.select(0, 0).slice(0, start, end);
        Tensor docMask = lossMask.select(0, 0).slice(0, start, end);
        Tensor cLoss = docLoss.mul(docMask).sum();
        Tensor cCount = docMask.sum();
        String channel = channels.get(i);
        channelLoss.merge(channel, cLoss, Tensor::add);
        channelCount.merge(channel, cCount, Tensor::add);
      }
    }

    /** loss_func: the mean token loss, plus the channel bookkeeping. */
    Tensor lossFunc(Tensor logits, Tensor labels, Tensor lossMask, Tensor cuSeqlens, List<String> channels) {
      Tensor losses = tokenLoss.forward(logits.view(-1, logits.size(-1)), labels.view(-1)).view(1, -1);
      computeChannelLoss(losses.detach(), lossMask, cuSeqlens, channels);
      return losses.mul(lossMask).sum().div(lossMask.sum());
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    GptModel model = new GptModel();
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 1e-4);
    MegatronTrainer trainer = new MegatronTrainer();
    List<String> channels = List.of("code", "math", "code", "chat");
    long[] boundaries = {0, 5, 13, 20, 32};
    for (int microBatch = 0; microBatch < 3; microBatch++) {
      Tensor inputIds = Tensor.randint(0, 64, Shape.of(1, 32), device);
      Tensor labels = Tensor.randint(0, 64, Shape.of(1, 32), device);
      Tensor lossMask = Tensor.rand(Shape.of(1, 32), device).gt(0.2).to(DType.FLOAT32);
      Tensor cuSeqlens = Tensor.of(boundaries, Shape.of(boundaries.length), device);
      Tensor loss = trainer.lossFunc(model.forward(inputIds), labels, lossMask, cuSeqlens, channels);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
    System.out.println(trainer.channelLoss.keySet());
  }
}
