package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import java.util.ArrayList;
import java.util.List;

/**
 * fastai2's batch transforms: a {@code TfmdDL} moves each batch to its {@code device} and then
 * applies its {@code after_batch} pipeline ({@code IntToFloatTensor}, {@code Normalize}); the
 * {@code Normalize} transform keeps {@code mean} and {@code std} as tensors, made by
 * {@code Normalize.from_stats(*imagenet_stats)} on the default device (the GPU when there is one).
 * {@code DataLoaders.cpu()} sets the device of every loader to the CPU.
 *
 * <p>Source: https://github.com/fastai/fastai2/issues/158
 *
 * <p>Bug: the {@code device} setter of {@code DataLoaders} only set {@code dl.device = d} on each
 * loader, so after {@code dls.cpu()} the batches come on the CPU while the {@code Normalize}
 * transform still holds its statistics on the GPU ("expected device cpu but got device cuda:0");
 * the fix calls a new {@code TfmdDL.to(device)} that also moves every tensor attribute of the
 * {@code after_batch} transforms.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class Fastai2NormalizeStatsAfterCpu {
  private Fastai2NormalizeStatsAfterCpu() {}

  /** fastai's default_device(): the GPU when one is in use. */
  static Device defaultDevice = Device.cpu();

  interface Transform {
    Tensor encodes(Tensor x);
  }

  static final class IntToFloatTensor implements Transform {
    final double div = 255.0;

    public Tensor encodes(Tensor o) {
      return o.to(DType.FLOAT32).div(div);
    }
  }

  static final class Normalize implements Transform {
    Tensor mean;
    Tensor std;

    Normalize(Tensor mean, Tensor std) {
      this.mean = mean;
      this.std = std;
    }

    /** broadcast_vec(dim=1, ndim=4, mean, std, cuda=cuda). */
    static Normalize fromStats(double[] mean, double[] std, boolean cuda) {
      Device d = cuda ? defaultDevice : Device.cpu();
      return new Normalize(Tensor.of(mean, Shape.of(1, mean.length, 1, 1), d), Tensor.of(std, Shape.of(1, std.length, 1, 1), d));
    }

    public Tensor encodes(Tensor x) {
      return x.sub(mean).div(std); // same bug
    }
  }

  static final class TfmdDL implements Iterable<Tensor> {
    final DataLoader loader;
    final List<Transform> afterBatch;
    Device device;

    TfmdDL(DataLoader loader, List<Transform> afterBatch, Device device) {
      this.loader = loader;
      this.afterBatch = afterBatch;
      this.device = device;
    }

    public java.util.Iterator<Tensor> iterator() {
      java.util.Iterator<Batch> it = loader.iterator();
      return new java.util.Iterator<>() {
        public boolean hasNext() {
          return it.hasNext();
        }

        public Tensor next() {
          Tensor b = it.next().inputs();
          if (device != null) {
            b = b.to(device);
          }
          for (Transform f : afterBatch) {
            b = f.encodes(b);
          }
          return b;
        }
      };
    }

    Tensor oneBatch() {
      return iterator().next();
    }
  }

  static final class DataLoaders {
    final List<TfmdDL> loaders;
    Device device;

    DataLoaders(List<TfmdDL> loaders) {
      this.loaders = loaders;
    }

    void setDevice(Device d) {
      for (TfmdDL dl : loaders) {
        dl.device = d; // bug: held-outside-models
      }
      this.device = d;
    }

    DataLoaders cuda(Device device) {
      setDevice(device);
      return this;
    }

    DataLoaders cpu() {
      return cuda(Device.cpu());
    }

    TfmdDL train() {
      return loaders.get(0);
    }

    Tensor oneBatch() {
      return train().oneBatch();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    defaultDevice = device;
    TensorDataset items = new TensorDataset(Tensor.randint(0, 255, Shape.of(100, 3, 16, 16)));
    List<Transform> afterBatch = new ArrayList<>(List.of(new IntToFloatTensor(),
        Normalize.fromStats(new double[] {0.485, 0.456, 0.406}, new double[] {0.229, 0.224, 0.225}, true)));
    TfmdDL train = new TfmdDL(DataLoader.builder(items).batchSize(2).shuffle(0).build(), afterBatch, defaultDevice);
    DataLoaders dls = new DataLoaders(List.of(train));
    System.out.println(dls.oneBatch().device());
    dls.cpu();
    System.out.println(dls.oneBatch().device());
  }
}
