package dev.ondevice.samples.mnist;

import dev.ondevice.Autograd;
import dev.ondevice.Cpu;
import dev.ondevice.Cuda;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.DeviceStats;
import dev.ondevice.Generator;
import dev.ondevice.MemoryScope;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.Mnist;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Layer;
import dev.ondevice.optim.Sgd;
import dev.ondevice.train.EpochMetrics;
import dev.ondevice.train.TrainingProgress;
import java.io.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;

/**
 * Trains an MLP or a CNN on MNIST, device-agnostic and written the way the device rules say: the
 * model created on its device, every batch's inputs and targets moved (non-blocking, from pinned
 * memory, when the device is a GPU), the loss accumulated on the device and read once per epoch
 * together with the test accuracy, by the library's {@link TrainingProgress}, whose listeners are
 * the progress bar, the epoch's line and the plot. Ends with the test accuracy, a checkpoint and a
 * PNG plot.
 *
 * <pre>
 * mvn -q -pl samples -am compile exec:java                                   # MLP, bundled subset
 * mvn -q -pl samples -am compile exec:java -Dexec.args="--model cnn --data ../shared/data/mnist"
 * mvn -q -pl samples -am compile exec:java -Dexec.args="--help"              # the options
 * </pre>
 */
public final class MnistTrainer {
  /**
   * The progress bar's running loss is read every this many batches (without waiting, on a GPU).
   */
  static final int READ_LOSS_EVERY = 5;

  private MnistTrainer() {}

  /**
   * Parses the command line and trains. {@code --help} prints the options to standard output; a bad
   * option, or data that cannot be read, is one line on standard error and exit status 2 or 1.
   */
  public static void main(String[] args) {
    int status = run(args, System.out, System.err);
    if (status != 0) {
      System.exit(status);
    }
  }

  /** What {@link #main} does, with its streams given; returns the exit status. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    CommandLine line = TrainingOptions.commandLine(defaultData());
    try {
      line.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      err.println("MnistTrainer: " + e.getMessage() + " (--help lists the options)");
      return 2;
    }
    if (line.isUsageHelpRequested()) {
      line.usage(out);
      return 0;
    }
    try {
      train(line.getCommand(), out, onTerminal());
      return 0;
    } catch (IOException e) {
      err.println("MnistTrainer: " + e.getMessage());
      return 1;
    }
  }

  /**
   * Whether the output goes to a terminal, where the progress bar redraws its line. Before JDK 22
   * {@code System.console()} is null unless it does; from JDK 22 it returns a console for
   * redirected streams too, and {@code Console.isTerminal()} (JDK 22, so called reflectively here)
   * tells.
   */
  @SuppressWarnings(
      "SystemConsoleNull") // the null check is the answer only before JDK 22, as above
  static boolean onTerminal() {
    Console console = System.console();
    if (console == null || Runtime.version().feature() < 22) {
      return console != null;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      throw new LinkageError("Console.isTerminal() is missing on Java " + Runtime.version(), e);
    }
  }

  /**
   * The MNIST subset shipped with the samples, found from the repository root or the samples
   * folder.
   */
  static Path defaultData() {
    for (Path candidate :
        List.of(Path.of("samples", "data", "mnist-subset"), Path.of("data", "mnist-subset"))) {
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    return Path.of("samples", "data", "mnist-subset");
  }

  /**
   * Trains as {@code options} say, printing progress to {@code out}; returns the epochs' metrics.
   */
  static List<EpochMetrics> train(TrainingOptions options, PrintStream out, boolean interactive)
      throws IOException {
    Device device = options.device;
    Generator.manualSeed(options.seed);
    TensorDataset trainSet = Mnist.load(options.data, true);
    TensorDataset testSet = Mnist.load(options.data, false);
    Layer model =
        options.model == TrainingOptions.ModelKind.MLP
            ? new MnistMlp(device)
            : new MnistCnn(device);
    Sgd optimizer = new Sgd(model.parameters(), options.learningRate).momentum(options.momentum);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    boolean pinned = device.isCuda();
    DataLoader trainLoader =
        DataLoader.builder(trainSet)
            .batchSize(options.batchSize)
            .shuffle(options.seed)
            .pinMemory(pinned)
            .build();
    DataLoader testLoader = DataLoader.builder(testSet).batchSize(1000).pinMemory(pinned).build();
    String name = options.model.name().toLowerCase(Locale.ROOT);
    printHeader(out, options, model, trainSet.size(), testSet.size());

    LossAccuracyPlot plot = new LossAccuracyPlot();
    TrainingProgress progress =
        new TrainingProgress(
            device,
            options.epochs,
            READ_LOSS_EVERY,
            new EpochProgress(out, interactive),
            new EpochLine(out, device),
            plot);
    int planned = Math.min(trainLoader.numBatches(), options.maxBatches);
    for (int epoch = 1; epoch <= options.epochs; epoch++) {
      progress.startEpoch(Math.min((long) planned * options.batchSize, trainSet.size()));
      model.train();
      int batches = 0;
      for (Batch batch : trainLoader) {
        Tensor xb = batch.inputs().to(device, pinned);
        Tensor yb = batch.targets().to(device, pinned);
        try (MemoryScope step = MemoryScope.open()) { // the step's activations freed when it ends
          Tensor loss = criterion.forward(model.forward(xb), yb);
          optimizer.zeroGrad();
          loss.backward();
          optimizer.step();
          progress.batchEnd(loss, xb.size(0));
        }
        if (++batches == planned) {
          break;
        }
      }
      progress.endEpoch(evaluate(model, testLoader, device, pinned), testSet.size());
    }
    Files.createDirectories(options.out);
    Path checkpoint = options.out.resolve("mnist-" + name + ".safetensors");
    long syncsBeforeSaving = DeviceStats.of(device).syncs();
    Checkpoint.save(checkpoint, model, optimizer);
    long savingSyncs = DeviceStats.of(device).syncs() - syncsBeforeSaving;
    Path plotFile = options.out.resolve("mnist-" + name + ".png");
    plot.write(plotFile, "MNIST " + name.toUpperCase(Locale.ROOT) + " on " + device.describe());
    List<EpochMetrics> epochs = progress.history();
    out.printf(
        Locale.ROOT,
        "test accuracy %.2f%%%ncheckpoint %s (%d %s to save it)%nplot %s%nthe whole run: %s%n",
        100 * epochs.get(epochs.size() - 1).accuracy().orElseThrow(),
        checkpoint,
        savingSyncs,
        device.isCpu() ? "host reads" : "host syncs",
        plotFile,
        DeviceStats.of(device));
    return epochs;
  }

  /**
   * The number of test images classified correctly, as a 0-dim int64 tensor on the device (no
   * sync).
   */
  static Tensor evaluate(Layer model, DataLoader loader, Device device, boolean pinned) {
    model.eval();
    Tensor correct = Tensor.zeros(Shape.scalar(), DType.INT64, device);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch batch : loader) {
        Tensor xb = batch.inputs().to(device, pinned);
        Tensor yb = batch.targets().to(device, pinned);
        correct = correct.add(model.forward(xb).argmax(1, false).eq(yb).sum());
      }
    }
    return correct;
  }

  private static void printHeader(
      PrintStream out, TrainingOptions o, Layer model, long trainSize, long testSize) {
    long parameters = 0;
    for (Parameter p : model.parameters()) {
      parameters += p.numel();
    }
    out.printf(
        Locale.ROOT,
        "MNIST %s, %,d parameters, on %s%s%n",
        o.model.name().toLowerCase(Locale.ROOT),
        parameters,
        o.device.describe(),
        Cuda.unavailableReason().map(r -> " (CUDA not available: " + r + ")").orElse(""));
    out.printf(
        Locale.ROOT,
        "data %s: %,d training and %,d test images; batch %d, SGD lr %s momentum %s; %s%n",
        o.data,
        trainSize,
        testSize,
        o.batchSize,
        o.learningRate,
        o.momentum,
        Cpu.matmulLibrary());
  }
}
