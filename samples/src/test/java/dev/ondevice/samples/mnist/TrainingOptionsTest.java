package dev.ondevice.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Cuda;
import dev.ondevice.Device;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trainer's command line: help on standard output with every option and its default, exit 0; a
 * bad option or value, and data that cannot be read, one line on standard error naming it, exit 2
 * or 1, and nothing trained.
 */
class TrainingOptionsTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return MnistTrainer.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private List<String> errLines() {
    return err.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void helpGoesToStandardOutputWithEveryOptionAndItsDefault() {
    assertEquals(0, run("--help"));
    String help = out.toString(StandardCharsets.UTF_8).replaceAll("\\s+", " ");
    assertTrue(help.startsWith("Usage: MnistTrainer [-h]"), help);
    for (String option :
        List.of(
            "--model=mlp|cnn",
            "--device=D",
            "--epochs=N",
            "--batch-size=N",
            "--lr=X",
            "--momentum=X",
            "--data=DIR",
            "--out=DIR",
            "--max-batches=N",
            "--seed=N")) {
      assertTrue(help.contains(option), option + " in\n" + help);
    }
    for (String shown :
        List.of(
            "(default: mlp)",
            "(default: 3)",
            "(default: 128)",
            "(default: 0.05)",
            "(default: 0.9)",
            "(default: runs)",
            "(default: 0)",
            "(default: every batch)",
            "(default: cuda if available, else cpu)")) {
      assertTrue(help.contains(shown), shown + " in\n" + help);
    }
    assertEquals("", err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aBadNumberNamesItsOptionOnOneLine() {
    assertEquals(2, run("--epochs", "x"));
    assertEquals(
        List.of(
            "MnistTrainer: Invalid value for option '--epochs': 'x' is not a whole number"
                + " (--help lists the options)"),
        errLines());
    assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing trained");
  }

  @Test
  void aNumberBelowOneNamesItsOption() {
    assertEquals(2, run("--max-batches", "0"));
    assertEquals(
        List.of(
            "MnistTrainer: Invalid value for option '--max-batches': '0' is not positive"
                + " (--help lists the options)"),
        errLines());
  }

  @Test
  void aBadModelListsTheModels() {
    assertEquals(2, run("--model", "rnn"));
    assertEquals(1, errLines().size(), err.toString(StandardCharsets.UTF_8));
    String line = errLines().get(0);
    assertTrue(line.contains("Invalid value for option '--model'"), line);
    assertTrue(line.contains("MLP, CNN"), line);
  }

  @Test
  void aBadDeviceSaysWhatIsWrongWithIt() {
    assertEquals(2, run("--device", "gpu"));
    assertEquals(1, errLines().size(), err.toString(StandardCharsets.UTF_8));
    assertTrue(
        errLines().get(0).startsWith("MnistTrainer: Invalid value for option '--device': "),
        errLines().get(0));
  }

  @Test
  void aCudaDeviceThatIsNotThereIsRefusedWithTheDevicesThatAre() {
    assertEquals(2, run("--device", "cuda:7"));
    int count = Cuda.deviceCount();
    assertEquals(
        List.of(
            "MnistTrainer: Invalid value for option '--device': there is no cuda:7 here, only cuda:0"
                + (count == 1 ? "" : " to cuda:" + (count - 1))
                + " (--help lists the options)"),
        errLines());
  }

  @Test
  void aMissingValueAndAnUnknownOptionAreNamed() {
    assertEquals(2, run("--epochs"));
    assertEquals(
        List.of(
            "MnistTrainer: Missing required parameter for option '--epochs' (N)"
                + " (--help lists the options)"),
        errLines());
    err.reset();
    assertEquals(2, run("--epoch", "2"));
    assertTrue(
        errLines().get(0).startsWith("MnistTrainer: Unknown options: '--epoch', '2'"),
        errLines().get(0));
    assertEquals(1, errLines().size(), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void dataThatCannotBeReadIsOneLineNamingTheFile(@TempDir Path empty) {
    assertEquals(
        1,
        run(
            "--device",
            "cpu",
            "--data",
            empty.toString(),
            "--out",
            empty.resolve("runs").toString()));
    assertEquals(1, errLines().size(), err.toString(StandardCharsets.UTF_8));
    assertTrue(
        errLines().get(0).startsWith("MnistTrainer: " + empty.resolve("train-images-idx3-ubyte")),
        errLines().get(0));
  }

  @Test
  void optionsAreParsedAsGiven() {
    TrainingOptions o =
        TrainingOptions.parse(
            new String[] {
              "--model",
              "CNN",
              "--device",
              "cpu",
              "--epochs",
              "2",
              "--batch-size",
              "64",
              "--lr",
              "0.1",
              "--momentum",
              "0",
              "--data",
              "d",
              "--out",
              "o",
              "--max-batches",
              "7",
              "--seed",
              "5"
            },
            Path.of("default"));
    assertEquals(TrainingOptions.ModelKind.CNN, o.model);
    assertEquals(Device.cpu(), o.device);
    assertEquals(2, o.epochs);
    assertEquals(64, o.batchSize);
    assertEquals(0.1, o.learningRate);
    assertEquals(0.0, o.momentum);
    assertEquals(Path.of("d"), o.data);
    assertEquals(Path.of("o"), o.out);
    assertEquals(7, o.maxBatches);
    assertEquals(5, o.seed);
    TrainingOptions defaults = TrainingOptions.parse(new String[0], Path.of("default"));
    assertEquals(Path.of("default"), defaults.data);
    assertEquals(Integer.MAX_VALUE, defaults.maxBatches);
    assertEquals(Path.of("runs"), defaults.out);
    assertEquals(3, defaults.epochs);
  }
}
