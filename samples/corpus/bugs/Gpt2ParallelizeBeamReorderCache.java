package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * GPT-2 split over two GPUs with {@code model.parallelize()} (embeddings, first blocks and LM head
 * on cuda:0, later blocks on cuda:1), generating with beam search and a key/value cache.
 *
 * <p>Source: https://github.com/huggingface/transformers/issues/9200
 *
 * <p>Bug: {@code GPT2LMHeadModel._reorder_cache} did {@code layer_past.index_select(1, beam_idx)}
 * for every layer's cached state, with {@code beam_idx} on cuda:0 (the input ids' device) while the
 * states of the blocks placed on cuda:1 stayed there (fixed by moving {@code beam_idx} to each
 * state's device). The beam selection below keeps only the best (beam, token) per step.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class Gpt2ParallelizeBeamReorderCache {
  private Gpt2ParallelizeBeamReorderCache() {}

  static final class Block extends Model {
    final Linear cAttn = new Linear(16, 48);
    final Linear cProj = new Linear(16, 16);

    /** Returns the output and this layer's present state, stack([key, value]). */
    Tensor[] forward(Tensor x, Tensor layerPast) {
      Tensor qkv = cAttn.forward(x);
      Tensor q = qkv.narrow(2, 0, 16);
      Tensor k = qkv.narrow(2, 16, 16);
      Tensor v = qkv.narrow(2, 32, 16);
      if (layerPast != null) {
        k = Tensor.cat(List.of(layerPast.select(0, 0), k), 1);
        v = Tensor.cat(List.of(layerPast.select(0, 1), v), 1);
      }
      Tensor attn = q.matmul(k.transpose(1, 2)).div(4.0).softmax(-1).matmul(v);
      return new Tensor[] {x.add(cProj.forward(attn)), Tensor.stack(List.of(k, v))};
    }
  }

  static final class Gpt2LmHeadModel extends Model {
    final Embedding wte = new Embedding(50, 16);
    final List<Block> h = List.of(new Block(), new Block());
    final Linear lmHead = new Linear(16, 50);
    Map<Integer, List<Integer>> deviceMap;

    void parallelize(Map<Integer, List<Integer>> deviceMap) {
      this.deviceMap = deviceMap;
      wte.toDevice(Device.cuda(0));
      deviceMap.forEach((gpu, layers) -> layers.forEach(i -> h.get(i).toDevice(Device.cuda(gpu))));
      lmHead.toDevice(Device.cuda(0));
    }

    /** Returns the logits and the presents, one per block, each on its block's device. */
    Object[] forward(Tensor inputIds, List<Tensor> past) {
      Tensor hidden = wte.forward(inputIds);
      List<Tensor> presents = new ArrayList<>();
      for (int i = 0; i < h.size(); i++) {
        Device blockDevice = h.get(i).device();
        hidden = hidden.to(blockDevice);                 // model parallel: inputs follow the block
        Tensor layerPast = past == null ? null : past.get(i);
        Tensor[] out = h.get(i).forward(hidden, layerPast);
        hidden = out[0];
        presents.add(out[1]);
      }
      hidden = hidden.to(lmHead.device());
      return new Object[] {lmHead.forward(hidden), presents};
    }

    static List<Tensor> reorderCache(List<Tensor> past, Tensor beamIdx) {
      List<Tensor> reordered = new ArrayList<>();
      for (Tensor layerPast : past) {
        reordered.add(layerPast.indexSelect(1, beamIdx));            // bug: held-outside-models
      }
      return reordered;
    }
  }

  @SuppressWarnings("unchecked")
  static Tensor beamSearch(Gpt2LmHeadModel model, Tensor inputIds, int numBeams, int maxNewTokens) {
    Device device = inputIds.device();
    Tensor beamScores = Tensor.zeros(Shape.of(numBeams), device);
    List<Tensor> past = null;
    Tensor modelInput = inputIds;
    for (int step = 0; step < maxNewTokens; step++) {
      Object[] outputs = model.forward(modelInput, past);
      Tensor logits = ((Tensor) outputs[0]).select(1, -1);                  // [beams, vocab]
      Tensor scores = logits.logSoftmax(-1).add(beamScores.unsqueeze(1)).reshape(-1);
      long best = scores.argmax().itemAsLong();
      Tensor beamIdx = Tensor.full(Shape.of(numBeams), best / 50, DType.INT64, device);
      Tensor nextTokens = Tensor.full(Shape.of(numBeams, 1), best % 50, DType.INT64, device);
      beamScores = scores.max().expand(numBeams);
      inputIds = Tensor.cat(List.of(inputIds.indexSelect(0, beamIdx), nextTokens), 1);
      past = Gpt2LmHeadModel.reorderCache((List<Tensor>) outputs[1], beamIdx);
      modelInput = nextTokens;
    }
    return inputIds;
  }

  /** Runs the program with small random data on two GPUs. */
  public static void run(Device device) throws Exception {
    Gpt2LmHeadModel model = new Gpt2LmHeadModel();
    model.parallelize(Map.of(0, List.of(0), 1, List.of(1)));   // device_map = {0: [0], 1: [1]}
    Tensor inputIds = Tensor.randint(0, 50, Shape.of(1, 4)).to(Device.cuda(0)).expand(2, 4); // costs time: CreateThenMove
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      beamSearch(model, inputIds, 2, 3);
    }
  }
}
