package dev.ondevice.errorprone;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The processor and the Error Prone checks on one processor path, as a build that uses both has
 * them: a bug is reported once, by Error Prone (its diagnostics have Error Prone's code, {@value
 * #ERROR_PRONE_CODE}) when it runs the device checks, and by the processor (through the {@code
 * Messager}) when Error Prone is absent or runs none of them.
 */
class OneReportPerBugTest {
  /**
   * The diagnostic code of Error Prone's errors; the processor's are {@code
   * compiler.err.proc.messager}.
   */
  static final String ERROR_PRONE_CODE = "compiler.err.error.prone";

  private static final String SOURCE =
      """
      import dev.ondevice.Device;
      import dev.ondevice.Tensor;
      class Test {
        Tensor run(Tensor x, Device device) {
          x.to(device);
          return x;
        }
      }\
      """;

  @TempDir Path dir;

  /** The full messages of the last compilation's errors, Error Prone's first. */
  private final List<String> messages = new ArrayList<>();

  @Test
  void errorProneReportsWhenItRunsTheChecks() throws IOException {
    assertEquals(
        List.of("5 error-prone [DiscardedMove]"),
        compile("-XDcompilePolicy=simple", "--should-stop=ifError=FLOW", "-Xplugin:ErrorProne"));
  }

  @Test
  void errorProneReportsWhenItEnablesOneDeviceCheckAfterDisablingAll() throws IOException {
    assertEquals(
        List.of("5 error-prone [DiscardedMove]"),
        compile(
            "-XDcompilePolicy=simple",
            "--should-stop=ifError=FLOW",
            "-Xplugin:ErrorProne -XepDisableAllChecks -Xep:DiscardedMove:ERROR"));
  }

  @Test
  void processorReportsWhenErrorProneRunsNoDeviceCheck() throws IOException {
    assertEquals(
        List.of("5 processor [DiscardedMove]"),
        compile(
            "-XDcompilePolicy=simple",
            "--should-stop=ifError=FLOW",
            "-Xplugin:ErrorProne -XepDisableAllChecks"));
  }

  @Test
  void processorReportsWithoutErrorProne() throws IOException {
    assertEquals(List.of("5 processor [DiscardedMove]"), compile());
  }

  @Test
  void bothReportWhenTheProcessorIsToldToKeepItsAnalysis() throws IOException {
    assertEquals(
        List.of("5 error-prone [DiscardedMove]", "5 processor [DiscardedMove]"),
        compile(
            "-Aondevice.analysis=on",
            "-XDcompilePolicy=simple",
            "--should-stop=ifError=FLOW",
            "-Xplugin:ErrorProne"));
  }

  @Test
  void errorProneGivesTheProcessorsMessageWithItsFixAndNoLink() throws IOException {
    compile(
        "-Aondevice.analysis=on",
        "-XDcompilePolicy=simple",
        "--should-stop=ifError=FLOW",
        "-Xplugin:ErrorProne");
    String processor =
        "[DiscardedMove] x.to(device) returns a new tensor and its result is discarded: tensors do not"
            + " move in place (models do); write x = x.to(device)";
    assertEquals(List.of(processor + "\n  Did you mean 'x = x.to(device);'?", processor), messages);
  }

  /** The errors, as "line reporter [ID]", told apart by their diagnostic code. */
  private List<String> compile(String... options) throws IOException {
    Path file = dir.resolve("Test.java");
    Files.writeString(file, SOURCE);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    String classPath = System.getProperty("java.class.path");
    List<String> args =
        new ArrayList<>(
            List.of("-d", dir.toString(), "-classpath", classPath, "-processorpath", classPath));
    args.addAll(List.of(options));
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
      javac
          .getTask(
              new StringWriter(), files, diagnostics, args, null, files.getJavaFileObjects(file))
          .call();
    }
    List<String> out = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        String message = d.getMessage(Locale.ROOT);
        boolean byErrorProne = d.getCode().equals(ERROR_PRONE_CODE);
        String reporter = byErrorProne ? "error-prone" : "processor";
        messages.add(byErrorProne ? 0 : messages.size(), message);
        out.add(
            d.getLineNumber()
                + " "
                + reporter
                + " "
                + message.substring(0, message.indexOf(']') + 1));
      }
    }
    out.sort(null);
    return out;
  }
}
