package dev.ondevice.processor;

import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;

/**
 * Small programs against the runtime's stubs, compiled with the processor and checked against their
 * {@code // expect:} markers.
 */
final class AnalysedSources {
  /** The imports every program gets; its body starts on line 13. */
  static final String IMPORTS =
      """
      package test;
      import dev.ondevice.Cuda;
      import dev.ondevice.Device;
      import dev.ondevice.Loader;
      import dev.ondevice.Loss;
      import dev.ondevice.Tensor;
      import dev.ondevice.annotations.OnDevice;
      import dev.ondevice.annotations.Step;
      import dev.ondevice.nn.Model;
      import java.util.List;
      import java.util.Map;
      """;

  private AnalysedSources() {}

  /**
   * Compiles {@code body} as {@code test.<name>} and asserts that its diagnostics are those its
   * markers expect.
   */
  static void check(String name, String body, String... options) {
    JavaFileObject f = source(name, IMPORTS + body);
    Compilation c = Sources.compileWithOptions(List.of(options), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
  }
}
