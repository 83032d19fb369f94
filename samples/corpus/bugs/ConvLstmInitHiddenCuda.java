package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import java.util.ArrayList;
import java.util.List;

/**
 * ndrplz/ConvLSTM_pytorch: a stacked convolutional LSTM whose forward builds the initial hidden
 * and cell states of every layer with {@code _init_hidden}, a list of (h, c) pairs, one per layer.
 * The model is trained on the second GPU.
 *
 * <p>Source: https://github.com/ndrplz/ConvLSTM_pytorch/pull/10
 *
 * <p>Bug: {@code ConvLSTMCell.init_hidden} returned
 * {@code Variable(torch.zeros(batch_size, hidden_dim, height, width)).cuda()}, a state on the
 * current default GPU whatever device the cell's conv is on; the cell then did
 * {@code torch.cat([input_tensor, h_cur], dim=1)} with the input on the model's device (fixed by
 * creating the state on {@code self.conv.weight.device}).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class ConvLstmInitHiddenCuda {
  private ConvLstmInitHiddenCuda() {}

  static final class ConvLstmCell extends Model {
    final int hiddenDim;
    final int height;
    final int width;
    final Conv2d conv;

    ConvLstmCell(int height, int width, int inputDim, int hiddenDim) {
      this.height = height;
      this.width = width;
      this.hiddenDim = hiddenDim;
      this.conv = new Conv2d(inputDim + hiddenDim, 4 * hiddenDim, 3, 1, 1, true);
    }

    Tensor[] forward(Tensor inputTensor, Tensor[] curState) {
      Tensor hCur = curState[0];
      Tensor cCur = curState[1];
      Tensor combined = Tensor.cat(List.of(inputTensor, hCur), 1);
      Tensor combinedConv = conv.forward(combined);
      Tensor i = combinedConv.narrow(1, 0, hiddenDim).sigmoid();
      Tensor f = combinedConv.narrow(1, hiddenDim, hiddenDim).sigmoid();
      Tensor o = combinedConv.narrow(1, 2 * hiddenDim, hiddenDim).sigmoid();
      Tensor g = combinedConv.narrow(1, 3 * hiddenDim, hiddenDim).tanh();
      Tensor cNext = f.mul(cCur).add(i.mul(g));
      Tensor hNext = o.mul(cNext.tanh());
      return new Tensor[] {hNext, cNext};
    }

    Tensor[] initHidden(int batchSize) {
      return new Tensor[] {Tensor.zeros(batchSize, hiddenDim, height, width).cuda(), // bug: across-methods
          Tensor.zeros(batchSize, hiddenDim, height, width).cuda()}; // bug: across-methods
    }
  }

  static final class ConvLstm extends Model {
    final List<ConvLstmCell> cellList = new ArrayList<>();

    ConvLstm(int height, int width, int inputDim, int hiddenDim, int numLayers) {
      for (int i = 0; i < numLayers; i++) {
        cellList.add(new ConvLstmCell(height, width, i == 0 ? inputDim : hiddenDim, hiddenDim));
      }
    }

    /** input_tensor: (b, t, c, h, w); returns the last layer's output (b, t, hidden, h, w). */
    Tensor forward(Tensor inputTensor) {
      List<Tensor[]> hiddenState = initHidden((int) inputTensor.size(0));
      Tensor curLayerInput = inputTensor;
      for (int layerIdx = 0; layerIdx < cellList.size(); layerIdx++) {
        Tensor[] hc = hiddenState.get(layerIdx);
        List<Tensor> outputInner = new ArrayList<>();
        for (int t = 0; t < inputTensor.size(1); t++) {
          hc = cellList.get(layerIdx).forward(curLayerInput.select(1, t), hc);
          outputInner.add(hc[0]);
        }
        curLayerInput = Tensor.stack(outputInner, 1);
      }
      return curLayerInput;
    }

    List<Tensor[]> initHidden(int batchSize) {
      List<Tensor[]> initStates = new ArrayList<>();
      for (ConvLstmCell cell : cellList) {
        initStates.add(cell.initHidden(batchSize));
      }
      return initStates;
    }
  }

  /** Runs the program with small random data on the second GPU. */
  public static void run(Device device) throws Exception {
    Device gpu = device.isCuda() ? Device.cuda(1) : device;
    ConvLstm model = new ConvLstm(6, 6, 2, 4, 2);
    model.toDevice(gpu);
    Tensor frames = Tensor.randn(dev.ondevice.Shape.of(2, 3, 2, 6, 6), gpu);
    Tensor target = Tensor.randn(dev.ondevice.Shape.of(2, 3, 4, 6, 6), gpu);
    new MseLoss().forward(model.forward(frames), target).backward();
  }
}
