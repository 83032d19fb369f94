package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A recurrent encoder built on Texar-PyTorch's {@code dynamic_rnn} helper, called without
 * {@code sequence_length}: the helper assumes full-length sequences, unrolls the cell and masks
 * the outputs past each sequence's length with {@code texar.torch.utils.shapes.mask_sequences}.
 *
 * <p>Source: https://github.com/asyml/texar-pytorch/pull/252
 *
 * <p>Bug: when {@code sequence_length} is None, {@code dynamic_rnn} creates it with
 * {@code torch.tensor([time_steps] * batch_size, dtype=torch.int32)}, without the inputs' device,
 * so the mask {@code mask_sequences} builds from it is on the CPU while the RNN outputs are on CUDA.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class TexarDynamicRnnLengthsOnCpu {
  private TexarDynamicRnnLengthsOnCpu() {}

  /** texar.torch.utils.shapes. */
  static final class Shapes {
    private Shapes() {}

    static Tensor sequenceMask(Tensor lengths, long maxLen) {
      Tensor rowVector = Tensor.arange(maxLen, lengths.device()).view(1, maxLen);
      return rowVector.lt(lengths.unsqueeze(1));
    }

    static Tensor maskSequences(Tensor sequence, Tensor sequenceLength) {
      sequence = sequence.transpose(0, 1); // time-major to batch-major
      long maxTime = sequence.size(1);
      Tensor mask = sequenceMask(sequenceLength, maxTime).to(sequence.dtype());
      mask = mask.view(mask.size(0), mask.size(1), 1);
      sequence = sequence.mul(mask);
      return sequence.transpose(0, 1);
    }
  }

  /** texar.torch.utils.rnn. */
  static final class Rnn {
    private Rnn() {}

    static Tensor dynamicRnn(RnnCell cell, Tensor inputs, Tensor sequenceLength) {
      inputs = inputs.permute(1, 0, 2); // (B,T,D) => (T,B,D)
      long timeSteps = inputs.size(0);
      long batchSize = inputs.size(1);
      if (sequenceLength == null) {
        long[] lengths = new long[(int) batchSize];
        Arrays.fill(lengths, timeSteps);
        sequenceLength = Tensor.of(lengths); // bug: across-methods
      }
      Tensor state = cell.zeroState(batchSize, inputs.device());
      Tensor outputs = dynamicRnnLoop(cell, inputs, state, sequenceLength);
      return outputs.permute(1, 0, 2);
    }

    static Tensor dynamicRnnLoop(RnnCell cell, Tensor inputs, Tensor state, Tensor sequenceLength) {
      List<Tensor> allOutputs = new ArrayList<>();
      for (long i = 0; i < inputs.size(0); i++) {
        state = cell.forward(inputs.select(0, i), state);
        allOutputs.add(state);
      }
      Tensor finalOutputs = Tensor.stack(allOutputs, 0);
      return Shapes.maskSequences(finalOutputs, sequenceLength);
    }
  }

  /** A basic RNN cell. */
  static final class RnnCell extends Model {
    final int hiddenSize;
    final Linear input;
    final Linear hidden;

    RnnCell(int inputSize, int hiddenSize) {
      this.hiddenSize = hiddenSize;
      input = new Linear(inputSize, hiddenSize);
      hidden = new Linear(hiddenSize, hiddenSize);
    }

    Tensor zeroState(long batchSize, Device device) {
      return Tensor.zeros(Shape.of(batchSize, hiddenSize), DType.FLOAT32, device);
    }

    Tensor forward(Tensor x, Tensor h) {
      return input.forward(x).add(hidden.forward(h)).tanh();
    }
  }

  /** texar's UnidirectionalRNNEncoder, called without sequence lengths. */
  static final class Encoder extends Model {
    final RnnCell cell = new RnnCell(8, 16);

    Tensor forward(Tensor inputs) {
      return Rnn.dynamicRnn(cell, inputs, null);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Encoder encoder = new Encoder();
    encoder.toDevice(device);
    Tensor inputs = Tensor.randn(Shape.of(4, 5, 8), device);
    Tensor outputs = encoder.forward(inputs);
    outputs.sum().backward();
  }
}
