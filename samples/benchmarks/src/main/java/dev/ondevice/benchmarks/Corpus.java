package dev.ondevice.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A generated corpus of model classes with realistic model and training code, for compile-time
 * benchmarks: each class has parameters, buffers, submodules, a list of layers, a forward method
 * and a device-agnostic training step. Optionally also writes hand-written equivalents of the code
 * the processor generates, so that a plain javac run compiles the same amount of code.
 */
public final class Corpus {
  private Corpus() {}

  /** Writes {@code count} model classes under {@code dir}/corpus; returns the source files. */
  public static List<Path> writeModels(Path dir, int count) throws IOException {
    Path pkg = Files.createDirectories(dir.resolve("corpus"));
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Path f = pkg.resolve("Model" + i + ".java");
      Files.writeString(f, model(i));
      files.add(f);
    }
    return files;
  }

  /** Writes what the processor would generate for each model, as if written by hand. */
  public static List<Path> writeHandWrittenCode(Path dir, int count) throws IOException {
    Path pkg = Files.createDirectories(dir.resolve("corpus"));
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Path f = pkg.resolve("OnDevice_Model" + i + ".java");
      Files.writeString(f, handWritten(i));
      files.add(f);
    }
    return files;
  }

  /**
   * Writes {@code count} classes of training and evaluation code that declare no model class (so
   * the processor generates nothing for them, only analyses them) under {@code dir}/training.
   */
  public static List<Path> writeTrainingCode(Path dir, int count) throws IOException {
    Path pkg = Files.createDirectories(dir.resolve("training"));
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Path f = pkg.resolve("Trainer" + i + ".java");
      Files.writeString(f, trainer(i));
      files.add(f);
    }
    return files;
  }

  private static String trainer(int i) {
    int hidden = 32 + i % 11;
    return String.join(
        "\n",
        "package training;",
        "",
        "import dev.ondevice.Autograd;",
        "import dev.ondevice.Device;",
        "import dev.ondevice.Shape;",
        "import dev.ondevice.Tensor;",
        "import dev.ondevice.data.Batch;",
        "import dev.ondevice.data.DataLoader;",
        "import dev.ondevice.data.TensorDataset;",
        "import dev.ondevice.nn.CrossEntropyLoss;",
        "import dev.ondevice.nn.Layer;",
        "import dev.ondevice.nn.Linear;",
        "import dev.ondevice.nn.ReLU;",
        "import dev.ondevice.nn.Sequential;",
        "import dev.ondevice.optim.Sgd;",
        "",
        "/** Corpus training code " + i + ". */",
        "public final class Trainer" + i + " {",
        "  private Trainer" + i + "() {}",
        "",
        "  public static Layer build(Device device) {",
        "    Sequential model = new Sequential(new Linear(784, "
            + hidden
            + "), new ReLU(), new Linear("
            + hidden
            + ", 10));",
        "    model.toDevice(device);",
        "    return model;",
        "  }",
        "",
        "  public static Tensor epoch(Layer model, DataLoader loader, Sgd optimizer, Device device) {",
        "    CrossEntropyLoss criterion = new CrossEntropyLoss();",
        "    Tensor total = Tensor.zeros(Shape.scalar(), device);",
        "    int batches = 0;",
        "    for (Batch batch : loader) {",
        "      Tensor xb = batch.inputs().to(device).flatten(1, -1);",
        "      Tensor yb = batch.targets().to(device);",
        "      Tensor loss = criterion.forward(model.forward(xb), yb);",
        "      optimizer.zeroGrad();",
        "      loss.backward();",
        "      optimizer.step();",
        "      total = total.add(loss.detach());",
        "      batches++;",
        "    }",
        "    return batches == 0 ? total : total.div(batches);",
        "  }",
        "",
        "  public static Tensor accuracy(Layer model, DataLoader loader, Device device) {",
        "    Tensor correct = Tensor.zeros(Shape.scalar(), device);",
        "    long seen = 0;",
        "    try (Autograd.Scope ignored = Autograd.noGrad()) {",
        "      for (Batch batch : loader) {",
        "        Tensor xb = batch.inputs().to(device).flatten(1, -1);",
        "        Tensor yb = batch.targets().to(device);",
        "        Tensor predicted = model.forward(xb).argmax(1, false);",
        "        correct = correct.add(predicted.eq(yb).sum());",
        "        seen += yb.shape().get(0);",
        "      }",
        "    }",
        "    return seen == 0 ? correct : correct.div(seen);",
        "  }",
        "",
        "  public static Tensor normalize(Tensor x) {",
        "    Tensor mean = x.mean(0, true);",
        "    Tensor std = x.std(new int[] {0}, true, true).add(1e-6);",
        "    return x.sub(mean).div(std);",
        "  }",
        "",
        "  public static double run(Device device, int epochs) {",
        "    Tensor images = normalize(Tensor.randn(Shape.of(64, 1, 28, 28)));",
        "    Tensor labels = Tensor.randint(0, 10, Shape.of(64));",
        "    DataLoader loader = DataLoader.builder(new TensorDataset(images, labels)).batchSize(16).build();",
        "    Layer model = build(device);",
        "    Sgd optimizer = new Sgd(model.parameters(), 0.05);",
        "    Tensor last = Tensor.zeros(Shape.scalar(), device);",
        "    for (int e = 0; e < epochs; e++) {",
        "      last = epoch(model, loader, optimizer, device);",
        "    }",
        "    return last.item() + accuracy(model, loader, device).item();",
        "  }",
        "}",
        "");
  }

  private static String model(int i) {
    int hidden = 16 + i % 7;
    return String.join(
        "\n",
        "package corpus;",
        "",
        "import dev.ondevice.Autograd;",
        "import dev.ondevice.Device;",
        "import dev.ondevice.Parameter;",
        "import dev.ondevice.Shape;",
        "import dev.ondevice.Tensor;",
        "import dev.ondevice.annotations.Buffer;",
        "import dev.ondevice.annotations.OnDevice;",
        "import dev.ondevice.nn.Linear;",
        "import dev.ondevice.nn.Model;",
        "import java.util.List;",
        "",
        "/** Corpus model " + i + ". */",
        "public class Model" + i + " extends Model {",
        "  final Linear input = new Linear(8, " + hidden + ");",
        "  final Linear output = new Linear(" + hidden + ", 4);",
        "  final List<Linear> hidden = List.of(new Linear("
            + hidden
            + ", "
            + hidden
            + "), new Linear("
            + hidden
            + ", "
            + hidden
            + "));",
        "  final Parameter scale = new Parameter(Tensor.ones(4));",
        "  @Buffer Tensor runningMean = Tensor.zeros(4, Device.cpu());",
        "  @OnDevice(\"cpu\") Tensor table = Tensor.arange(16);",
        "  int steps;",
        "",
        "  public Tensor forward(Tensor x) {",
        "    Tensor h = input.forward(x).relu();",
        "    for (Linear layer : hidden) {",
        "      h = layer.forward(h).tanh().add(h);",
        "    }",
        "    Tensor logits = output.forward(h).mul(scale);",
        "    return logits.sub(runningMean).logSoftmax(1);",
        "  }",
        "",
        "  public static double trainStep(Model"
            + i
            + " model, Tensor xb, Tensor yb, Device device, double lr) {",
        "    xb = xb.to(device);",
        "    yb = yb.to(device);",
        "    Tensor out = model.forward(xb);",
        "    Tensor loss = out.gather(1, yb.unsqueeze(1)).neg().mean();",
        "    loss.backward();",
        "    try (Autograd.Scope ignored = Autograd.noGrad()) {",
        "      for (Parameter p : model.parameters()) {",
        "        if (p.grad() != null) {",
        "          p.subi(p.grad().mul(lr));",
        "          p.setGrad(null);",
        "        }",
        "      }",
        "    }",
        "    model.steps++;",
        "    return loss.item();",
        "  }",
        "",
        "  public static Tensor evaluate(Model" + i + " model, Tensor x, Device device) {",
        "    Tensor total = Tensor.zeros(Shape.scalar(), device);",
        "    try (Autograd.Scope ignored = Autograd.noGrad()) {",
        "      for (int b = 0; b < 4; b++) {",
        "        Tensor xb = x.narrow(0, b * 2, 2).to(device);",
        "        total = total.add(model.forward(xb).max());",
        "      }",
        "    }",
        "    return total;",
        "  }",
        "}",
        "");
  }

  /**
   * What the processor would generate for model {@code i}, as if written by hand, in a file of its
   * own.
   */
  static String handWritten(int i) {
    return String.join(
        "\n",
        "package corpus;",
        "",
        "import dev.ondevice.nn.ModelCode;",
        "import dev.ondevice.nn.StateVisitor;",
        "",
        "/** Hand-written equivalent of the generated code of Model" + i + ". */",
        codeClass(i, "public final class", ""),
        "");
  }

  /**
   * The hand-written code of models {@code 0} to {@code count - 1} in one file, as nested classes
   * of {@code corpus.OnDevice_Models}: what one generated file per package would hold.
   */
  static String handWrittenInOneFile(int count) {
    StringBuilder out =
        new StringBuilder(
            """
        package corpus;

        import dev.ondevice.nn.ModelCode;
        import dev.ondevice.nn.StateVisitor;

        /** Hand-written equivalents of the generated code of every corpus model. */
        public final class OnDevice_Models {
          private OnDevice_Models() {}
        """);
    for (int i = 0; i < count; i++) {
      out.append(codeClass(i, "public static final class", "  ")).append("\n");
    }
    return out.append("}\n").toString();
  }

  /** Writes {@link #handWrittenInOneFile}; returns the source file. */
  public static Path writeHandWrittenCodeInOneFile(Path dir, int count) throws IOException {
    Path f = Files.createDirectories(dir.resolve("corpus")).resolve("OnDevice_Models.java");
    Files.writeString(f, handWrittenInOneFile(count));
    return f;
  }

  private static String codeClass(int i, String declaration, String indent) {
    return String.join(
            "\n",
            declaration + " OnDevice_Model" + i + " implements ModelCode<Model" + i + "> {",
            "  @Override",
            "  public void visit(Model" + i + " model, String prefix, StateVisitor visitor) {",
            "    visitor.submodule(prefix + \"input\", model.input);",
            "    visitor.submodule(prefix + \"output\", model.output);",
            "    if (model.hidden != null) {",
            "      for (int i = 0; i < model.hidden.size(); i++) {",
            "        visitor.submodule(prefix + \"hidden.\" + i, model.hidden.get(i));",
            "      }",
            "    }",
            "    visitor.parameter(prefix + \"scale\", model.scale);",
            "    model.runningMean = visitor.buffer(prefix + \"runningMean\", model.runningMean, true, false);",
            "  }",
            "}")
        .replace("\n", "\n" + indent)
        .transform(text -> indent + text);
  }
}
