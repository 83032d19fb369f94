package corpus.bugs;

import dev.ondevice.Cuda;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * PyTorchZeroToAll's "Lab 12 RNN" on the GPU (11_3_hello_rnn_gpu.py): a one-layer RNN learns to map
 * the one-hot characters of "hihell" to "ihello"; the script moves the inputs, the labels, the
 * model and the initial hidden state to CUDA when it is available.
 *
 * <p>Source: https://github.com/hunkim/PyTorchZeroToAll/pull/6 (commit d7e3a11, "solved the cuda
 * error")
 *
 * <p>Bug: {@code inputs.cuda()}, {@code labels.cuda()} and, in {@code forward}, {@code h_0.cuda()}
 * drop their results: the tensors stay on the CPU while {@code rnn.cuda()} (a module, moved in
 * place) is on the GPU, and the first step fails. The fix assigns the results ({@code inputs =
 * inputs.cuda()}, ...).
 *
 * <p>Ported: {@code nn.RNN} (tanh, batch_first) is written out with two linear maps; {@code
 * torch.cuda.is_available()} is {@code Cuda.isAvailable()} and {@code .cuda()} is {@code
 * to(device)} with the run's device.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class HunkimHelloRnnGpuDroppedCuda {
  private HunkimHelloRnnGpuDroppedCuda() {}

  static final String[] IDX2CHAR = {"h", "i", "e", "l", "o"};
  static final int NUM_CLASSES = 5;
  static final int INPUT_SIZE = 5;
  static final int HIDDEN_SIZE = 5;
  static final int SEQUENCE_LENGTH = 6;
  static final int NUM_LAYERS = 1;

  /** nn.RNN(input_size=5, hidden_size=5, batch_first=True), one layer, tanh. */
  static final class RnnLayer extends Model {
    final Linear ih = new Linear(INPUT_SIZE, HIDDEN_SIZE);
    final Linear hh = new Linear(HIDDEN_SIZE, HIDDEN_SIZE);

    Tensor forward(Tensor x, Tensor h0) {
      Tensor h = h0.select(1, 0);
      List<Tensor> outputs = new ArrayList<>();
      for (int t = 0; t < x.size(1); t++) {
        h = ih.forward(x.select(1, t)).add(hh.forward(h)).tanh(); // same bug
        outputs.add(h);
      }
      return Tensor.stack(outputs, 1);
    }
  }

  static final class Rnn extends Model {
    final int numClasses;
    final int numLayers;
    final int inputSize;
    final int hiddenSize;
    final int sequenceLength;
    final Device device;
    final RnnLayer rnn = new RnnLayer();

    Rnn(int numClasses, int inputSize, int hiddenSize, int numLayers, Device device) {
      this.numClasses = numClasses;
      this.numLayers = numLayers;
      this.inputSize = inputSize;
      this.hiddenSize = hiddenSize;
      this.sequenceLength = SEQUENCE_LENGTH;
      this.device = device;
    }

    Tensor forward(Tensor x) {
      // Initialize hidden and cell states
      Tensor h0 = Tensor.zeros(x.size(0), numLayers, hiddenSize); // same bug
      if (Cuda.isAvailable()) {
        h0.to(device); // bug: in-method
      }

      // Reshape input
      x.view(x.size(0), sequenceLength, inputSize); // another bug: DiscardedTensorOp

      // Propagate input through RNN
      Tensor out = rnn.forward(x, h0);
      return out.view(-1, numClasses);
    }
  }

  /** Runs the program on {@code device}. */
  public static void run(Device device) throws Exception {
    // Teach hihell -> ihello
    float[][] xOneHot = {
        {1, 0, 0, 0, 0}, // h 0
        {0, 1, 0, 0, 0}, // i 1
        {1, 0, 0, 0, 0}, // h 0
        {0, 0, 1, 0, 0}, // e 2
        {0, 0, 0, 1, 0}, // l 3
        {0, 0, 0, 1, 0}}; // l 3
    long[] yData = {1, 0, 2, 3, 3, 4}; // ihello

    // As we have one batch of samples, we will change them to variables only once
    Tensor inputs = Tensor.of(xOneHot).unsqueeze(0);
    Tensor labels = Tensor.of(yData);

    if (Cuda.isAvailable()) {
      inputs.to(device); // bug: in-method
      labels.to(device); // bug: in-method
    }

    // Instantiate RNN model
    Rnn rnn = new Rnn(NUM_CLASSES, INPUT_SIZE, HIDDEN_SIZE, NUM_LAYERS, device);
    if (Cuda.isAvailable()) {
      rnn.toDevice(device);
    }
    System.out.println(rnn);

    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Adam optimizer = new Adam(rnn.parameters(), 0.1);

    // Train the model
    for (int epoch = 0; epoch < 100; epoch++) {
      Tensor outputs = rnn.forward(inputs); // same bug
      optimizer.zeroGrad();
      Tensor loss = criterion.forward(outputs, labels);
      loss.backward();
      optimizer.step();
      long[] idx = outputs.max(1).indices().toLongArray(); // costs time: HostSyncInLoop
      StringBuilder resultStr = new StringBuilder();
      for (long c : idx) {
        resultStr.append(IDX2CHAR[(int) c]);
      }
      System.out.printf("epoch: %d, loss: %1.3f%n", epoch + 1, loss.item()); // costs time: HostSyncInLoop
      System.out.println("Predicted string: " + resultStr);
    }
    System.out.println("Learning finished!");
  }
}
