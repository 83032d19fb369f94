package dev.ondevice.processor;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.processing.Processor;
import javax.tools.JavaFileObject;

/** Test sources: stubs of the runtime API, golden files, and compilation with the processor. */
final class Sources {
  private static final String[] STUBS = {
    "dev/ondevice/Tensor.java",
    "dev/ondevice/Shape.java",
    "dev/ondevice/Parameter.java",
    "dev/ondevice/Device.java",
    "dev/ondevice/Cuda.java",
    "dev/ondevice/Loader.java",
    "dev/ondevice/Loss.java",
    "dev/ondevice/nn/Model.java",
    "dev/ondevice/nn/ModelCode.java",
    "dev/ondevice/nn/StateVisitor.java",
    "dev/ondevice/optim/Optimizer.java",
    "dev/ondevice/optim/OptimizerState.java",
    "dev/ondevice/optim/Sgd.java",
    "dev/ondevice/io/Checkpoint.java",
    "dev/ondevice/io/MapLocation.java"
  };

  private Sources() {}

  /** A source file {@code test/<name>.java} with the given text. */
  static JavaFileObject source(String name, String text) {
    return JavaFileObjects.forSourceString("test." + name, text);
  }

  /** The text of a resource of this test module. */
  static String resource(String path) {
    try (InputStream in = Sources.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalArgumentException("No test resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Compiles {@code sources} with the runtime stubs and the processor (plus {@code others}). */
  static Compilation compile(List<JavaFileObject> sources, Processor... others) {
    return compileWithOptions(List.of(), sources, others);
  }

  /** Compiles with javac options ({@code -A...}). */
  static Compilation compileWithOptions(
      List<String> options, List<JavaFileObject> sources, Processor... others) {
    List<JavaFileObject> all = new ArrayList<>();
    for (String stub : STUBS) {
      all.add(
          JavaFileObjects.forSourceString(
              stub.replace('/', '.').replace(".java", ""), resource("stubs/" + stub)));
    }
    all.addAll(sources);
    List<Processor> processors = new ArrayList<>(List.of(others));
    processors.add(new OnDeviceProcessor());
    return Compiler.javac().withProcessors(processors).withOptions(options).compile(all);
  }

  /** Compiles {@code sources} with the stubs and the processor. */
  static Compilation compile(JavaFileObject... sources) {
    return compile(List.of(sources));
  }
}
