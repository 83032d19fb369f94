package dev.ondevice.samples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A generated corpus of model classes with realistic model and training code, for compile-time
 * benchmarks: each class has parameters, buffers, submodules, a list of layers, a forward method and
 * a device-agnostic training step. Optionally also writes hand-written equivalents of the code the
 * processor generates, so that a plain javac run compiles the same amount of code.
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

  private static String model(int i) {
    int hidden = 16 + i % 7;
    return String.join("\n",
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
        "  final List<Linear> hidden = List.of(new Linear(" + hidden + ", " + hidden + "), new Linear(" + hidden + ", "
            + hidden + "));",
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
        "  public static double trainStep(Model" + i + " model, Tensor xb, Tensor yb, Device device, double lr) {",
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

  private static String handWritten(int i) {
    return String.join("\n",
        "package corpus;",
        "",
        "import dev.ondevice.nn.ModelCode;",
        "import dev.ondevice.nn.StateVisitor;",
        "",
        "/** Hand-written equivalent of the generated code of Model" + i + ". */",
        "public final class OnDevice_Model" + i + " implements ModelCode<Model" + i + "> {",
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
        "}",
        "");
  }
}
