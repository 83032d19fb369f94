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
 * them: a bug is reported once, by Error Prone (its messages end with the check's link) when it
 * runs the device checks, and by the processor when Error Prone is absent or runs none of them.
 */
class OneReportPerBugTest {
  private static final String SOURCE = """
      import dev.ondevice.Device;
      import dev.ondevice.Tensor;
      class Test {
        Tensor run(Tensor x, Device device) {
          x.to(device);
          return x;
        }
      }\
      """;

  @TempDir
  Path dir;

  @Test
  void errorProneReportsWhenItRunsTheChecks() throws IOException {
    assertEquals(List.of("5 error-prone [DiscardedMove]"), compile("-XDcompilePolicy=simple",
        "--should-stop=ifError=FLOW", "-Xplugin:ErrorProne"));
  }

  @Test
  void errorProneReportsWhenItEnablesOneDeviceCheckAfterDisablingAll() throws IOException {
    assertEquals(List.of("5 error-prone [DiscardedMove]"), compile("-XDcompilePolicy=simple",
        "--should-stop=ifError=FLOW", "-Xplugin:ErrorProne -XepDisableAllChecks -Xep:DiscardedMove:ERROR"));
  }

  @Test
  void processorReportsWhenErrorProneRunsNoDeviceCheck() throws IOException {
    assertEquals(List.of("5 processor [DiscardedMove]"), compile("-XDcompilePolicy=simple",
        "--should-stop=ifError=FLOW", "-Xplugin:ErrorProne -XepDisableAllChecks"));
  }

  @Test
  void processorReportsWithoutErrorProne() throws IOException {
    assertEquals(List.of("5 processor [DiscardedMove]"), compile());
  }

  @Test
  void bothReportWhenTheProcessorIsToldToKeepItsAnalysis() throws IOException {
    assertEquals(List.of("5 error-prone [DiscardedMove]", "5 processor [DiscardedMove]"), compile(
        "-Aondevice.analysis=on", "-XDcompilePolicy=simple", "--should-stop=ifError=FLOW", "-Xplugin:ErrorProne"));
  }

  /** The errors, as "line reporter [ID]"; Error Prone's messages end with the check's link. */
  private List<String> compile(String... options) throws IOException {
    Path file = dir.resolve("Test.java");
    Files.writeString(file, SOURCE);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    String classPath = System.getProperty("java.class.path");
    List<String> args = new ArrayList<>(List.of("-d", dir.toString(), "-classpath", classPath, "-processorpath",
        classPath));
    args.addAll(List.of(options));
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
      javac.getTask(new StringWriter(), files, diagnostics, args, null, files.getJavaFileObjects(file)).call();
    }
    List<String> out = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        String message = d.getMessage(Locale.ROOT);
        String reporter = message.contains("docs/checks/") ? "error-prone" : "processor";
        out.add(d.getLineNumber() + " " + reporter + " " + message.substring(0, message.indexOf(']') + 1));
      }
    }
    out.sort(null);
    return out;
  }
}
