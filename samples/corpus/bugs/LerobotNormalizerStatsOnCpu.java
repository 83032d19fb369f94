package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.AdamW;
import java.util.HashMap;
import java.util.Map;

/**
 * LeRobot policy training through a processor pipeline: a device step moves the batch to the
 * GPU, then a {@code NormalizerProcessor} (a plain dataclass, not a module) normalizes the state
 * with mean/std statistics it converted to tensors at construction, before the policy predicts
 * the action.
 *
 * <p>Source: https://github.com/huggingface/lerobot/pull/1795
 *
 * <p>Bug: the processor's {@code _tensor_stats} dict is built on its {@code device}, None here, so
 * on the CPU; its transform only moved the input when a device was configured, so under Accelerate
 * the CUDA state met CPU stats ("Expected all tensors to be on the same device").
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class LerobotNormalizerStatsOnCpu {
  private LerobotNormalizerStatsOnCpu() {}

  /** lerobot.processor.NormalizerProcessor, MEAN_STD mode. */
  static final class NormalizerProcessor {
    final Map<String, Map<String, Tensor>> tensorStats = new HashMap<>();
    final Device device;
    final double eps = 1e-8;

    NormalizerProcessor(Map<String, float[][]> stats, Device device) {
      this.device = device;
      for (Map.Entry<String, float[][]> e : stats.entrySet()) {
        Map<String, Tensor> s = new HashMap<>();
        s.put("mean", toTensor(e.getValue()[0], device));
        s.put("std", toTensor(e.getValue()[1], device));
        tensorStats.put(e.getKey(), s);
      }
    }

    /** converters.to_tensor: on {@code device}, or the default device when it is None. */
    static Tensor toTensor(float[] values, Device device) {
      return device == null ? Tensor.of(values) : Tensor.of(values, Shape.of(values.length), device);
    }

    Tensor applyTransform(Tensor tensor, String key) {
      if (device != null) {
        tensor = tensor.to(device);
      }
      Map<String, Tensor> stats = tensorStats.get(key);
      return tensor.sub(stats.get("mean")).div(stats.get("std").add(eps)); // bug: held-outside-models
    }
  }

  /** A small policy mapping the normalized state to an action. */
  static final class Policy extends Model {
    final Linear fc1 = new Linear(6, 32);
    final Linear fc2 = new Linear(32, 2);

    Tensor forward(Tensor state) {
      return fc2.forward(fc1.forward(state).relu());
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Policy policy = new Policy();
    policy.toDevice(device);
    Map<String, float[][]> datasetStats = new HashMap<>();
    datasetStats.put("observation.state", new float[][] {{0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1}});
    NormalizerProcessor normalizer = new NormalizerProcessor(datasetStats, null);
    AdamW optimizer = new AdamW(policy.parameters(), 1e-4);
    MseLoss loss = new MseLoss();
    DataLoader loader =
        DataLoader.builder(new TensorDataset(Tensor.randn(16, 6), Tensor.randn(16, 2))).batchSize(8).build();
    for (Batch batch : loader) {
      Tensor state = batch.inputs().to(device); // DeviceProcessorStep
      Tensor action = batch.targets().to(device);
      state = normalizer.applyTransform(state, "observation.state");
      Tensor l = loss.forward(policy.forward(state), action);
      optimizer.zeroGrad();
      l.backward();
      optimizer.step();
    }
  }
}
