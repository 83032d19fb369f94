package dev.ondevice.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ondevice.processor.OnDeviceProcessor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device analysis over a large body of real code it was not written against: the running JDK's
 * own {@code java.util} (with {@code java.util.stream} and {@code java.util.concurrent}), compiled
 * from the JDK's {@code lib/src.zip} as a patch of {@code java.base}, with the processor. Every
 * body is interpreted; none may fail inside the analysis, and the one device bug planted at the end
 * of the compilation must be the only diagnostic. Skipped on a JDK that ships no sources.
 */
class JdkSourcesTest {
  private static final String PACKAGE = "java.base/java/util/";

  /** Planted last: proves that the analysis ran over the whole compilation, up to its end. */
  private static final String PROBE =
      """
      package java.util;

      import dev.ondevice.Device;
      import dev.ondevice.Tensor;

      final class OnDeviceProbe {
        static Tensor probe(Device device) {
          return Tensor.randn(2, 2).to(device);
        }
      }
      """;

  @Test
  void everyBodyOfJavaUtilIsAnalysedWithoutAnInternalFailure(@TempDir Path dir) throws IOException {
    Path srcZip = Path.of(System.getProperty("java.home"), "lib", "src.zip");
    assumeTrue(Files.isRegularFile(srcZip), "this JDK ships no sources (" + srcZip + ")");
    Path patch = dir.resolve("java.base");
    List<Path> sources = extract(srcZip, patch);
    assumeTrue(sources.size() > 100, "src.zip holds no java.util sources");
    Path probe = patch.resolve("java/util/OnDeviceProbe.java");
    Files.writeString(probe, PROBE);
    sources.add(probe);

    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<String> options =
          List.of(
              "--patch-module",
              "java.base=" + patch,
              "--add-reads",
              "java.base=ALL-UNNAMED",
              "-cp",
              System.getProperty("java.class.path"),
              "-d",
              Files.createDirectories(dir.resolve("out")).toString(),
              "-Xlint:none",
              "-XDshould-stop.ifNoError=FLOW",
              "-Xmaxwarns",
              "100000",
              "-Xmaxerrs",
              "1000");
      JavaCompiler.CompilationTask task =
          javac.getTask(
              null, files, diagnostics, options, null, files.getJavaFileObjectsFromPaths(sources));
      task.setProcessors(List.of(new OnDeviceProcessor()));
      task.call();
    }

    List<String> reported = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() != Diagnostic.Kind.NOTE) {
        String file =
            d.getSource() == null ? "" : Path.of(d.getSource().toUri()).getFileName().toString();
        reported.add(
            file + ":" + d.getLineNumber() + " " + d.getKind() + " " + d.getMessage(Locale.ROOT));
      }
    }
    assertEquals(1, reported.size(), "diagnostics of " + sources.size() + " files: " + reported);
    assertTrue(
        reported.get(0).startsWith("OnDeviceProbe.java:8 WARNING [CreateThenMove] "),
        reported.get(0));
  }

  /**
   * Extracts the sources of java.util and its subpackages into {@code patch}, in the zip's order.
   */
  private static List<Path> extract(Path srcZip, Path patch) throws IOException {
    List<Path> out = new ArrayList<>();
    try (ZipFile zip = new ZipFile(srcZip.toFile())) {
      Enumeration<? extends ZipEntry> entries = zip.entries();
      while (entries.hasMoreElements()) {
        ZipEntry e = entries.nextElement();
        String name = e.getName();
        if (e.isDirectory() || !name.startsWith(PACKAGE) || !name.endsWith(".java")) {
          continue;
        }
        Path target = patch.resolve(name.substring("java.base/".length()));
        Files.createDirectories(target.getParent());
        try (InputStream in = zip.getInputStream(e)) {
          Files.copy(in, target);
        }
        out.add(target);
      }
    }
    return out;
  }
}
