package dev.ondevice.samples.mnist;

import dev.ondevice.Device;
import java.nio.file.Path;
import java.util.Locale;

/** The trainer's command line: {@code --model mlp|cnn --device D --epochs N --data DIR ...}. */
final class TrainingOptions {
  /** The models the trainer knows. */
  enum ModelKind {
    MLP,
    CNN
  }

  static final String USAGE = """
      Usage: MnistTrainer [options]
        --model mlp|cnn        the model (default mlp)
        --device D             cpu, cuda or cuda:N (default: cuda if available, else cpu)
        --epochs N             epochs (default 3)
        --batch-size N         batch size (default 128)
        --lr X                 SGD learning rate (default 0.05)
        --momentum X           SGD momentum (default 0.9)
        --data DIR             folder with the four MNIST IDX files, plain or .gz
                               (default: the 6,000-image subset shipped in samples/data/mnist-subset)
        --out DIR              where to write the checkpoint and the plot (default runs)
        --max-batches N        stop each epoch after N batches (a short run)
        --seed N               seed of the initialisation and the shuffling (default 0)""";

  ModelKind model = ModelKind.MLP;
  Device device = Device.cudaIfAvailable();
  int epochs = 3;
  int batchSize = 128;
  double learningRate = 0.05;
  double momentum = 0.9;
  Path data;
  Path out = Path.of("runs");
  int maxBatches = Integer.MAX_VALUE;
  long seed;

  /**
   * Parses the arguments.
   *
   * @throws IllegalArgumentException naming the bad argument
   */
  static TrainingOptions parse(String[] args, Path defaultData) {
    TrainingOptions o = new TrainingOptions();
    o.data = defaultData;
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (name.equals("--help") || name.equals("-h")) {
        throw new IllegalArgumentException(USAGE);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Option " + name + " needs a value\n" + USAGE);
      }
      String value = args[++i];
      switch (name) {
        case "--model" -> o.model = model(value);
        case "--device" -> o.device = Device.parse(value);
        case "--epochs" -> o.epochs = positive(name, value);
        case "--batch-size" -> o.batchSize = positive(name, value);
        case "--lr" -> o.learningRate = Double.parseDouble(value);
        case "--momentum" -> o.momentum = Double.parseDouble(value);
        case "--data" -> o.data = Path.of(value);
        case "--out" -> o.out = Path.of(value);
        case "--max-batches" -> o.maxBatches = positive(name, value);
        case "--seed" -> o.seed = Long.parseLong(value);
        default -> throw new IllegalArgumentException("Unknown option " + name + "\n" + USAGE);
      }
    }
    return o;
  }

  private static ModelKind model(String value) {
    for (ModelKind k : ModelKind.values()) {
      if (k.name().equals(value.toUpperCase(Locale.ROOT))) {
        return k;
      }
    }
    throw new IllegalArgumentException("--model must be mlp or cnn, got " + value);
  }

  private static int positive(String name, String value) {
    int n = Integer.parseInt(value);
    if (n <= 0) {
      throw new IllegalArgumentException(name + " must be positive, got " + value);
    }
    return n;
  }
}
