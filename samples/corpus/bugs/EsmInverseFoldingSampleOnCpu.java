package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.List;

/**
 * ESM-IF1 ({@code GVPTransformerModel.sample}): the model converts the backbone coordinates with
 * {@code CoordBatchConverter}, runs the encoder once, then decodes autoregressively from a {@code
 * sampled_tokens} tensor that starts with the {@code <cath>} token, picking each residue from the
 * decoder's logits.
 *
 * <p>Source: https://github.com/facebookresearch/esm/issues/374 (fixed by
 * https://github.com/facebookresearch/esm/pull/386)
 *
 * <p>Bug: with the model moved by {@code model.to(device)}, {@code model.sample(coords)} fails
 * ("Expected all tensors to be on the same device, but found at least two devices, cuda:10 and
 * cpu!"): the batch converter and {@code torch.full} for {@code sampled_tokens} build their tensors
 * on the CPU; the fix gives {@code sample} a {@code device} argument and passes it to both.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class EsmInverseFoldingSampleOnCpu {
  private EsmInverseFoldingSampleOnCpu() {}

  static final int CATH_IDX = 33;

  /** esm/inverse_folding/util.py: CoordBatchConverter, for a batch of one structure. */
  static final class CoordBatchConverter {
    /** Returns coords [1, L, 9] and a padding mask [1, L], built from the host arrays. */
    Tensor[] convert(float[][] coords, Device device) {
      int length = coords.length;
      float[] flat = new float[length * 9];
      for (int i = 0; i < length; i++) {
        System.arraycopy(coords[i], 0, flat, i * 9, 9);
      }
      Tensor batchCoords = device == null
          ? Tensor.of(flat, 1, length, 9)
          : Tensor.of(flat, Shape.of(1, length, 9), device);
      Tensor paddingMask = Tensor.zeros(Shape.of(1, length), DType.BOOL, batchCoords.device());
      return new Tensor[] {batchCoords, paddingMask};
    }
  }

  static final class GvpEncoder extends Model {
    final Linear embed = new Linear(9, 32);

    Tensor forward(Tensor coords, Tensor paddingMask) {
      return embed.forward(coords).relu();
    }
  }

  static final class TransformerDecoder extends Model {
    final Embedding embedTokens = new Embedding(35, 32);
    final Linear outputProjection = new Linear(32, 35);

    /** Logits of the next token from the prefix and the mean encoder state. */
    Tensor forward(Tensor prevOutputTokens, Tensor encoderOut) {
      Tensor x = embedTokens.forward(prevOutputTokens).mean(1);
      return outputProjection.forward(x.add(encoderOut.mean(1)));
    }
  }

  static final class GvpTransformerModel extends Model {
    final GvpEncoder encoder = new GvpEncoder();
    final TransformerDecoder decoder = new TransformerDecoder();

    long[] sample(float[][] coords, double temperature) {
      int length = coords.length;
      CoordBatchConverter batchConverter = new CoordBatchConverter();
      Tensor[] batch = batchConverter.convert(coords, null); // bug: across-methods
      Tensor batchCoords = batch[0];
      Tensor paddingMask = batch[1];

      // Start with the <cath> token; each step appends the sampled residue.
      Tensor sampledTokens = Tensor.full(Shape.of(1, 1), CATH_IDX).to(DType.INT64); // bug: in-method

      // Run encoder only once
      Tensor encoderOut = encoder.forward(batchCoords, paddingMask); // same bug
      for (int i = 1; i <= length; i++) {
        Tensor logits = decoder.forward(sampledTokens, encoderOut);
        Tensor probs = logits.div(temperature).softmax(-1);
        Tensor next = probs.argmax(-1).view(1, 1);
        sampledTokens = Tensor.cat(List.of(sampledTokens, next), 1);
      }
      return sampledTokens.slice(1, 1, 1 + length).cpu().toLongArray();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    GvpTransformerModel model = new GvpTransformerModel();
    model.eval();
    model.toDevice(device);
    float[][] coords = new float[12][9];
    java.util.Random random = new java.util.Random(0);
    for (float[] residue : coords) {
      for (int j = 0; j < 9; j++) {
        residue[j] = (float) random.nextGaussian();
      }
    }
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      long[] sampledSeq = model.sample(coords, 1.0);
      System.out.println(java.util.Arrays.toString(sampledSeq));
    }
  }
}
