package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.Sources.compile;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/** Every model-declaration error, pinned by message, file and line; each source has one bug. */
class ModelDeclarationErrorsTest {
  private static final String HEADER =
      """
      package test;
      import dev.ondevice.Parameter;
      import dev.ondevice.Tensor;
      import dev.ondevice.nn.Model;
      import dev.ondevice.annotations.Buffer;
      import dev.ondevice.annotations.OnDevice;
      import java.util.List;
      import java.util.Map;
      """;

  /** A model {@code Net} whose body starts on line 10. */
  private static JavaFileObject net(String... body) {
    return source(
        "Net", HEADER + "class Net extends Model {\n" + String.join("\n", body) + "\n}\n");
  }

  private static void assertOneError(Compilation c, JavaFileObject file, int line, String message) {
    assertThat(c).failed();
    assertThat(c).hadErrorCount(1);
    assertThat(c).hadErrorContaining(message).inFile(file).onLine(line);
  }

  @Test
  void unregisteredTensorField() {
    JavaFileObject f = net("  Tensor scale;");
    assertOneError(compile(f), f, 10, String.format(Messages.UNREGISTERED_TENSOR, "scale"));
  }

  @Test
  void unregisteredTensorMessageSaysWhatHappensAndTheFix() {
    JavaFileObject f = net("  Parameter w;", "  Tensor mask;");
    assertOneError(
        compile(f),
        f,
        11,
        "it would stay on cpu when the model moves; annotate it @Buffer, or @OnDevice(\"cpu\") if it must stay there");
  }

  @Test
  void privateParameter() {
    JavaFileObject f = net("  private Parameter weight;");
    assertOneError(
        compile(f),
        f,
        10,
        String.format(Messages.PRIVATE_FIELD, "Parameter", "weight", "OnDevice_Net", "reads"));
  }

  @Test
  void privateBuffer() {
    JavaFileObject f = net("  @Buffer private Tensor runningMean;");
    assertOneError(
        compile(f),
        f,
        10,
        "@Buffer field runningMean must not be private; the generated OnDevice_Net"
            + " reads and writes it");
  }

  @Test
  void privateSubmodule() {
    JavaFileObject f = net("  private Net inner;");
    assertOneError(
        compile(f),
        f,
        10,
        String.format(Messages.PRIVATE_FIELD, "Submodule", "inner", "OnDevice_Net", "reads"));
  }

  @Test
  void finalBuffer() {
    JavaFileObject f = net("  @Buffer final Tensor runningMean = null;");
    assertOneError(
        compile(f), f, 10, String.format(Messages.FINAL_BUFFER, "@Buffer", "runningMean"));
  }

  @Test
  void finalModelDeviceField() {
    JavaFileObject f = net("  @OnDevice final Tensor mask = null;");
    assertOneError(compile(f), f, 10, String.format(Messages.FINAL_BUFFER, "@OnDevice", "mask"));
  }

  @Test
  void staticBuffer() {
    JavaFileObject f = net("  @Buffer static Tensor table;");
    assertOneError(compile(f), f, 10, String.format(Messages.STATIC_BUFFER, "@Buffer", "table"));
  }

  @Test
  void staticTensorConstant() {
    JavaFileObject f = net("  static final Tensor SCALE = null;");
    assertOneError(compile(f), f, 10, String.format(Messages.STATIC_TENSOR, "SCALE"));
  }

  @Test
  void staticParameter() {
    JavaFileObject f = net("  static Parameter shared;");
    assertOneError(compile(f), f, 10, String.format(Messages.STATIC_STATE, "Parameter", "shared"));
  }

  @Test
  void bufferOnNonTensor() {
    JavaFileObject f = net("  @Buffer int steps;");
    assertOneError(compile(f), f, 10, String.format(Messages.BUFFER_NOT_TENSOR, "steps", "int"));
  }

  @Test
  void bufferOnParameter() {
    JavaFileObject f = net("  @Buffer Parameter weight;");
    assertOneError(compile(f), f, 10, String.format(Messages.BUFFER_ON_PARAMETER, "weight"));
  }

  @Test
  void onDeviceOnParameter() {
    JavaFileObject f = net("  @OnDevice(\"cpu\") Parameter weight;");
    assertOneError(compile(f), f, 10, String.format(Messages.ON_DEVICE_ON_PARAMETER, "weight"));
  }

  @Test
  void onDevicePinnedToAGpu() {
    JavaFileObject f = net("  @OnDevice(\"cuda:0\") Tensor table;");
    assertOneError(
        compile(f), f, 10, String.format(Messages.ON_DEVICE_BAD_VALUE, "table", "cuda:0"));
  }

  @Test
  void onDeviceOnNonTensor() {
    JavaFileObject f = net("  @OnDevice String name;");
    assertOneError(
        compile(f),
        f,
        10,
        String.format(Messages.ON_DEVICE_NOT_TENSOR, "name", "java.lang.String"));
  }

  @Test
  void listOfTensors() {
    JavaFileObject f = net("  List<Tensor> masks;");
    assertOneError(
        compile(f),
        f,
        10,
        String.format(Messages.TENSOR_CONTAINER, "masks", "java.util.List<dev.ondevice.Tensor>"));
  }

  @Test
  void arrayOfModels() {
    JavaFileObject f = net("  Net[] blocks;");
    assertOneError(
        compile(f), f, 10, String.format(Messages.TENSOR_CONTAINER, "blocks", "test.Net[]"));
  }

  @Test
  void mapWithNonStringKeys() {
    JavaFileObject f = net("  Map<Integer, Net> blocks;");
    assertOneError(
        compile(f), f, 10, String.format(Messages.MAP_KEY, "blocks", "java.lang.Integer"));
  }

  @Test
  void unboundedTypeVariableField() {
    JavaFileObject f =
        source("Holder", HEADER + "class Holder<T> extends Model {\n  T thing;\n}\n");
    assertOneError(compile(f), f, 10, String.format(Messages.GENERIC_FIELD, "thing", "T"));
  }

  @Test
  void typeVariableBuffer() {
    JavaFileObject f =
        source(
            "Holder",
            HEADER + "class Holder<T extends Tensor> extends Model {\n  @Buffer T state;\n}\n");
    assertOneError(
        compile(f), f, 10, String.format(Messages.GENERIC_BUFFER, "@Buffer", "state", "T"));
  }

  @Test
  void privateNestedModelClass() {
    JavaFileObject f =
        source("Outer", HEADER + "class Outer {\n  private static class Net extends Model {}\n}\n");
    assertOneError(
        compile(f),
        f,
        10,
        String.format(Messages.PRIVATE_MODEL_CLASS, "Net", "OnDevice_Outer_Net"));
  }

  @Test
  void innerModelClass() {
    JavaFileObject f = source("Outer", HEADER + "class Outer {\n  class Net extends Model {}\n}\n");
    assertOneError(compile(f), f, 10, String.format(Messages.INNER_MODEL_CLASS, "Net", "Outer"));
  }

  @Test
  void modelNestedInPrivateClass() {
    JavaFileObject f =
        source(
            "Outer",
            HEADER
                + "class Outer {\n  private static class Box {\n    static class Net extends Model {}\n  }\n}\n");
    assertOneError(
        compile(f),
        f,
        11,
        String.format(Messages.ENCLOSED_IN_PRIVATE, "Net", "Box", "OnDevice_Outer_Box_Net", "Box"));
  }

  @Test
  void bufferOutsideAModel() {
    JavaFileObject f = source("Config", HEADER + "class Config {\n  @Buffer Tensor mean;\n}\n");
    assertOneError(
        compile(f), f, 10, String.format(Messages.BUFFER_OUTSIDE_MODEL, "mean", "Config"));
  }

  @Test
  void bufferWithoutTheRuntime() {
    JavaFileObject f =
        com.google.testing.compile.JavaFileObjects.forSourceString(
            "test.Config",
            """
        package test;
        import dev.ondevice.annotations.Buffer;
        class Config {
          @Buffer Object mean;
        }\
        """);
    Compilation c =
        com.google.testing.compile.Compiler.javac()
            .withProcessors(new OnDeviceProcessor())
            .compile(f);
    assertOneError(c, f, 4, Messages.RUNTIME_MISSING);
  }

  @Test
  void everyBadFieldIsReportedNotJustTheFirst() {
    JavaFileObject f = net("  Tensor a;", "  private Parameter b;", "  @Buffer int c;");
    Compilation c = compile(f);
    assertThat(c).hadErrorCount(3);
    assertThat(c)
        .hadErrorContaining(String.format(Messages.UNREGISTERED_TENSOR, "a"))
        .inFile(f)
        .onLine(10);
    assertThat(c).hadErrorContaining("Parameter field b must not be private").inFile(f).onLine(11);
    assertThat(c)
        .hadErrorContaining(String.format(Messages.BUFFER_NOT_TENSOR, "c", "int"))
        .inFile(f)
        .onLine(12);
  }

  @Test
  void aFieldHidingAStateFieldOfTheSuperclass() {
    JavaFileObject f =
        source(
            "Net",
            HEADER
                + "class Base extends Model {\n  Parameter fc;\n}\nclass Net extends Base {\n  Parameter fc;\n}\n");
    assertOneError(compile(f), f, 13, String.format(Messages.HIDES_STATE, "fc", "Base", "fc"));
  }

  @Test
  void nestedContainersOfModels() {
    JavaFileObject f = net("  List<List<Net>> grid;", "  Net[][] rows;");
    Compilation c = compile(f);
    assertThat(c).hadErrorCount(2);
    assertThat(c)
        .hadErrorContaining(
            String.format(
                Messages.TENSOR_CONTAINER, "grid", "java.util.List<java.util.List<test.Net>>"))
        .inFile(f)
        .onLine(10);
    assertThat(c)
        .hadErrorContaining(String.format(Messages.TENSOR_CONTAINER, "rows", "test.Net[][]"))
        .inFile(f)
        .onLine(11);
  }

  @Test
  void bufferInARecord() {
    JavaFileObject f = source("Config", HEADER + "record Config(@Buffer Tensor mean) {}\n");
    assertOneError(
        compile(f), f, 9, String.format(Messages.BUFFER_OUTSIDE_MODEL, "mean", "Config"));
  }

  @Test
  void twoModelsWithTheSameGeneratedName() {
    JavaFileObject f =
        source(
            "Outer",
            HEADER
                + "class Outer {\n  static class Inner extends Model {\n    Parameter w;\n  }\n}\n"
                + "class Outer_Inner extends Model {\n  Parameter w;\n}\n");
    assertOneError(
        compile(f),
        f,
        14,
        String.format(
            Messages.GENERATED_NAME_CLASH,
            "Outer_Inner",
            "test.Outer.Inner",
            "test.OnDevice_Outer_Inner"));
  }

  @Test
  void cpuZeroIsTheCpu() {
    JavaFileObject f =
        net(
            "  @OnDevice(\"cpu:0\") Tensor table;",
            "  @Buffer @OnDevice(\"cpu:0\") Tensor vocabulary;");
    assertThat(compile(f)).succeededWithoutWarnings();
  }

  /**
   * A model-declaration error is held until javac has analysed its class: the method-body findings
   * of the same class and of the other classes, and javac's own errors, come in the same build.
   */
  @Test
  void declarationErrorHidesNoOtherFinding() {
    JavaFileObject net =
        net(
            "  Tensor scale;",
            "  Tensor forward(Tensor x) { x.to(dev.ondevice.Device.cpu()); return x; }");
    JavaFileObject other =
        source(
            "Other",
            HEADER
                + "class Other {\n"
                + "  static void f(Tensor y, dev.ondevice.Device d) { y.to(d); }\n"
                + "  int broken() { return \"javac's own error\"; }\n}\n");
    Compilation c = compile(net, other);
    assertThat(c).hadErrorCount(4);
    assertThat(c)
        .hadErrorContaining(String.format(Messages.UNREGISTERED_TENSOR, "scale"))
        .inFile(net)
        .onLine(10);
    assertThat(c).hadErrorContaining("[DiscardedMove] x.to(").inFile(net).onLine(11);
    assertThat(c).hadErrorContaining("[DiscardedMove] y.to(d)").inFile(other).onLine(10);
    assertThat(c).hadErrorContaining("incompatible types").inFile(other).onLine(11);
  }
}
