package dev.ondevice.samples.mnist;

import dev.ondevice.Cuda;
import dev.ondevice.Device;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The trainer's command line, parsed by picocli: {@code --model mlp|cnn --device D --epochs N
 * --data DIR ...}. {@link #commandLine} gives the parser, whose usage lists every option with its
 * default.
 */
@Command(
    name = "MnistTrainer",
    sortOptions = false,
    usageHelpAutoWidth = true,
    description =
        "Trains an MLP or a CNN on MNIST on the chosen device; writes a checkpoint and a plot.")
final class TrainingOptions {
  /** The models the trainer knows. */
  enum ModelKind {
    MLP,
    CNN
  }

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "print this help and exit")
  boolean help;

  @Option(
      names = "--model",
      paramLabel = "mlp|cnn",
      defaultValue = "mlp",
      description = "the model (default: ${DEFAULT-VALUE})")
  ModelKind model;

  @Option(
      names = "--device",
      paramLabel = "D",
      converter = DeviceConverter.class,
      description = "cpu, cuda or cuda:N (default: cuda if available, else cpu)")
  Device device = Device.cudaIfAvailable();

  @Option(
      names = "--epochs",
      paramLabel = "N",
      defaultValue = "3",
      converter = PositiveInt.class,
      description = "epochs (default: ${DEFAULT-VALUE})")
  int epochs;

  @Option(
      names = "--batch-size",
      paramLabel = "N",
      defaultValue = "128",
      converter = PositiveInt.class,
      description = "batch size (default: ${DEFAULT-VALUE})")
  int batchSize;

  @Option(
      names = "--lr",
      paramLabel = "X",
      defaultValue = "0.05",
      description = "SGD learning rate (default: ${DEFAULT-VALUE})")
  double learningRate;

  @Option(
      names = "--momentum",
      paramLabel = "X",
      defaultValue = "0.9",
      description = "SGD momentum (default: ${DEFAULT-VALUE})")
  double momentum;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description =
          "folder with the four MNIST IDX files, plain or .gz (default: the 6,000-image subset "
              + "shipped in samples/data/mnist-subset)")
  Path data;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "runs",
      description = "where to write the checkpoint and the plot (default: ${DEFAULT-VALUE})")
  Path out;

  @Option(
      names = "--max-batches",
      paramLabel = "N",
      converter = PositiveInt.class,
      description = "stop each epoch after N batches, for a short run (default: every batch)")
  int maxBatches = Integer.MAX_VALUE;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "0",
      description = "seed of the initialisation and the shuffling (default: ${DEFAULT-VALUE})")
  long seed;

  private TrainingOptions(Path defaultData) {
    this.data = defaultData;
  }

  /**
   * A parser that fills a new options object, {@code defaultData} unless {@code --data} is given.
   */
  static CommandLine commandLine(Path defaultData) {
    return new CommandLine(new TrainingOptions(defaultData))
        .setCaseInsensitiveEnumValuesAllowed(true);
  }

  /**
   * Parses the arguments.
   *
   * @throws CommandLine.ParameterException naming the bad option and value
   */
  static TrainingOptions parse(String[] args, Path defaultData) {
    CommandLine line = commandLine(defaultData);
    line.parseArgs(args);
    return line.getCommand();
  }

  /**
   * {@code cpu}, {@code cuda} or {@code cuda:N}, as {@link Device#parse} reads them, and present on
   * this machine: a CUDA device that is not is refused here, with the reason, rather than when the
   * model is first moved.
   */
  static final class DeviceConverter implements ITypeConverter<Device> {
    @Override
    public Device convert(String value) {
      Device device;
      try {
        device = Device.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
      if (device.isCuda()) {
        Optional<String> unavailable = Cuda.unavailableReason();
        if (unavailable.isPresent()) {
          throw new TypeConversionException("CUDA is not available: " + unavailable.get());
        }
        int count = Cuda.deviceCount();
        if (device.resolved().index() >= count) {
          throw new TypeConversionException(
              "there is no "
                  + device.resolved()
                  + " here, only cuda:0"
                  + (count == 1 ? "" : " to cuda:" + (count - 1)));
        }
      }
      return device;
    }
  }

  /** A whole number above zero. */
  static final class PositiveInt implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      int n;
      try {
        n = Integer.parseInt(value);
      } catch (NumberFormatException e) {
        throw new TypeConversionException("'" + value + "' is not a whole number");
      }
      if (n <= 0) {
        throw new TypeConversionException("'" + value + "' is not positive");
      }
      return n;
    }
  }
}
