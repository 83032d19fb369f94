package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.List;

/**
 * mamba_ssm's Mamba-3 MIMO varlen path: every layer's forward (and backward) calls {@code
 * compute_dacs_segsum_triton_varlen(da, chunk_size, cu_seqlens)}, which builds the chunk-to-sequence
 * mapping of the packed batch before launching its Triton kernel.
 *
 * <p>Source: https://github.com/state-spaces/mamba/pull/969 (open; the loop is in
 * {@code mamba_ssm/ops/triton/mamba3/mamba3_mimo_utils.py})
 *
 * <p>Bug: the mapping is built by a Python loop over the packed sequences reading {@code
 * int(cu_seqlens[i].item())} and {@code int(chunks_per_seq[i].item())} from the device, plus {@code
 * seq_lens[0].item()} before it: {@code 2 * num_sequences + 1} host syncs per layer per step. The PR
 * computes the mapping on the device without reading anything back.
 *
 * <p>Outcome: completes (costs time)
 */
public final class MambaVarlenChunkMappingItemSync {
  private MambaVarlenChunkMappingItemSync() {}

  static final class Mamba3MimoUtils {
    /** Returns {@code da_cs} of the packed sequences; the Triton kernel is replaced by its plain reference. */
    static Tensor computeDacsSegsumVarlen(Tensor da, int chunkSize, Tensor cuSeqlens) {
      long s = da.size(2);
      int numSequences = (int) Math.max(cuSeqlens.numel() - 1, 0);
      int nchunks = (int) (s / chunkSize) + numSequences;

      Tensor seqLens = cuSeqlens.slice(0, 1, numSequences + 1).sub(cuSeqlens.slice(0, 0, numSequences));
      Tensor chunksPerSeq = seqLens.div(chunkSize).floor().to(DType.INT64).add(1);

      Tensor stateSeqMapping = Tensor.zeros(Shape.of(nchunks), DType.INT64, da.device());
      Tensor stateChunkInSeq = Tensor.zeros(Shape.of(nchunks), DType.INT64, da.device());
      long defaultSeqLen = numSequences > 0 ? seqLens.get(0).itemAsLong() : 0; // bug: per-step
      long defaultInactiveLocalChunk = (defaultSeqLen + chunkSize - 1) / chunkSize;
      stateChunkInSeq.fill(defaultInactiveLocalChunk);

      for (int i = 0; i < numSequences; i++) {
        long start = cuSeqlens.get(i).itemAsLong(); // bug: per-step
        long n = chunksPerSeq.get(i).itemAsLong(); // bug: per-step
        long chunkStart = start / chunkSize + i;
        long chunkEnd = chunkStart + n;
        if (chunkEnd > nchunks) {
          throw new IllegalStateException("Chunk mapping overflow for seq " + i);
        }
        stateSeqMapping.slice(0, chunkStart, chunkEnd).fill(i);
        stateChunkInSeq.slice(0, chunkStart, chunkEnd).copyFrom(Tensor.arange(0, n, da.device()));
      }

      // Reference for dacs_segsum_kernel_varlen: inclusive prefix sum of da within each sequence, clipped to <= 0.
      Tensor pos = Tensor.arange(0, s, da.device());
      Tensor seqOfToken = pos.unsqueeze(1).ge(cuSeqlens.slice(0, 1, numSequences + 1).unsqueeze(0)).sum(1);
      Tensor sameSeq = seqOfToken.unsqueeze(1).eq(seqOfToken.unsqueeze(0));
      Tensor causal = pos.unsqueeze(1).ge(pos.unsqueeze(0));
      Tensor prefix = sameSeq.logicalAnd(causal).to(da.dtype());
      Tensor daCs = da.matmul(prefix.t()).clampMax(0);
      Tensor chunkSeqStart = cuSeqlens.indexSelect(0, stateSeqMapping);   // the kernel's per-chunk lookup
      return daCs.add(chunkSeqStart.sum().mul(0).to(da.dtype()));
    }
  }

  /** A Mamba-3 style mixer reduced to its decay path. */
  static final class Mamba3Layer extends Model {
    final Linear inProj;
    final Linear dtProj;
    final Linear outProj;
    final int chunkSize = 4;

    Mamba3Layer(int d, int heads) {
      inProj = new Linear(d, d);
      dtProj = new Linear(d, heads);
      outProj = new Linear(heads, d);
    }

    Tensor forward(Tensor x, Tensor cuSeqlens) {
      Tensor dt = dtProj.forward(x).sigmoid().neg();          // [S, H]
      Tensor da = dt.t().unsqueeze(0);                         // [1, H, S]
      Tensor daCs = Mamba3MimoUtils.computeDacsSegsumVarlen(da, chunkSize, cuSeqlens);
      Tensor y = daCs.exp().squeeze(0).t();                    // [S, H]
      return x.add(outProj.forward(y).mul(inProj.forward(x).tanh()));
    }
  }

  public static void run(Device device) {
    List<Mamba3Layer> layers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Mamba3Layer layer = new Mamba3Layer(8, 2);
      layer.toDevice(device);
      layers.add(layer);
    }
    List<dev.ondevice.Parameter> params = new ArrayList<>();
    layers.forEach(l -> params.addAll(l.parameters()));
    AdamW opt = new AdamW(params, 1e-3);
    Tensor cuSeqlens = Tensor.of(new long[] {0, 5, 9, 16}).to(device);   // packed batch of three sequences
    for (int step = 0; step < 3; step++) {
      Tensor x = Tensor.randn(Shape.of(16, 8), device);
      for (Mamba3Layer layer : layers) {
        x = layer.forward(x, cuSeqlens);
      }
      Tensor loss = x.square().mean();
      opt.zeroGrad();
      loss.backward();
      opt.step();
    }
  }
}
