package dev.ondevice.samples.gallery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import dev.ondevice.processor.OnDeviceProcessor;
import dev.ondevice.processor.analysis.CheckId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The gallery, compiled against the real runtime by both front ends of the device analysis, the
 * processor and the Error Prone checks: every device bug in {@code gallery/bugs} is reported with
 * the expected check at the expected line ({@code // expect: ID}, {@code // expect: warning ID},
 * {@code // expect-error: message}), and the device-agnostic programs in {@code gallery/correct}
 * compile without a single diagnostic.
 */
class GalleryTest {
  private static final Path GALLERY = Path.of("gallery");
  private static final Pattern EXPECT = Pattern.compile("//\\s*expect:\\s*(.*)$");
  private static final Pattern EXPECT_ERROR = Pattern.compile("//\\s*expect-error:\\s*(.*)$");
  private static final Pattern ID = Pattern.compile("^\\[([A-Za-z]+)\\]");

  static List<Path> files(String folder) throws IOException {
    try (Stream<Path> s = Files.list(GALLERY.resolve(folder))) {
      return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }

  /** Which front end reports the device bugs. */
  enum FrontEnd {
    PROCESSOR,
    /** Error Prone with only the device checks; the processor generates code and steps aside. */
    ERROR_PRONE
  }

  static Compilation compile(Path file, FrontEnd frontEnd) throws IOException {
    String text = Files.readString(file);
    String name =
        "gallery."
            + file.getParent().getFileName()
            + "."
            + file.getFileName().toString().replace(".java", "");
    JavaFileObject source = JavaFileObjects.forSourceString(name, text);
    Compiler javac = Compiler.javac().withProcessors(new OnDeviceProcessor());
    if (frontEnd == FrontEnd.ERROR_PRONE) {
      String checks =
          Arrays.stream(CheckId.values())
              .filter(c -> c != CheckId.ANALYSIS_FAILURE)
              .map(c -> " -Xep:" + c.id())
              .collect(Collectors.joining());
      // Error Prone loads checks from the processor path only, never from the class path.
      javac =
          javac.withOptions(
              "-processorpath",
              System.getProperty("java.class.path"),
              "-XDcompilePolicy=simple",
              "--should-stop=ifError=FLOW",
              "-Xplugin:ErrorProne -XepDisableAllChecks" + checks);
    }
    return javac.compile(source);
  }

  /** Expected diagnostics of a file, sorted: "line kind ID" or "line error ~message fragment". */
  static List<String> expected(Path file) throws IOException {
    List<String> out = new ArrayList<>();
    List<String> lines = Files.readAllLines(file);
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = EXPECT.matcher(lines.get(i));
      if (m.find()) {
        for (String item : m.group(1).split(",", -1)) {
          String s = item.trim();
          boolean warning = s.startsWith("warning ");
          out.add((i + 1) + " " + (warning ? "warning " + s.substring(8) : "error " + s));
        }
      }
      Matcher e = EXPECT_ERROR.matcher(lines.get(i));
      if (e.find()) {
        out.add((i + 1) + " error ~" + e.group(1).trim());
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * Actual diagnostics, in the form of {@link #expected}; plain errors matched against the expected
   * fragments.
   */
  static List<String> actual(Compilation c, List<String> expected, FrontEnd frontEnd) {
    List<String> out = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : c.diagnostics()) {
      if (d.getKind() != Diagnostic.Kind.ERROR && d.getKind() != Diagnostic.Kind.WARNING) {
        continue;
      }
      String kind = d.getKind() == Diagnostic.Kind.ERROR ? "error" : "warning";
      String message = d.getMessage(Locale.ROOT);
      Matcher m = ID.matcher(message);
      if (m.find()) {
        // Error Prone reports under its own diagnostic codes (compiler.err.error.prone,
        // compiler.warn.error.prone); the processor through the Messager
        // (compiler.err.proc.messager).
        boolean byErrorProne = d.getCode().endsWith(".error.prone");
        String wrongFrontEnd =
            byErrorProne == (frontEnd == FrontEnd.ERROR_PRONE) ? "" : " (by the other front end)";
        out.add(d.getLineNumber() + " " + kind + " " + m.group(1) + wrongFrontEnd);
        continue;
      }
      String plain = d.getLineNumber() + " " + kind + " ~";
      String match =
          expected.stream()
              .filter(x -> x.startsWith(plain) && message.contains(x.substring(plain.length())))
              .findFirst()
              .orElse(plain + message);
      out.add(match);
    }
    out.sort(null);
    return out;
  }

  private static void check(Path file, FrontEnd frontEnd) throws IOException {
    Compilation c = compile(file, frontEnd);
    List<String> expected = expected(file);
    List<String> all = new ArrayList<>();
    c.diagnostics().forEach(d -> all.add(d.getLineNumber() + ": " + d.getMessage(Locale.ROOT)));
    assertEquals(
        String.join("\n", expected),
        String.join("\n", actual(c, expected, frontEnd)),
        file + ": diagnostics differ; all of them:\n" + String.join("\n", all));
  }

  @TestFactory
  Stream<DynamicTest> everyBugIsReportedAtItsLine() throws IOException {
    return tests("bugs", FrontEnd.PROCESSOR);
  }

  @TestFactory
  Stream<DynamicTest> correctProgramsCompileWithoutDiagnostics() throws IOException {
    return tests("correct", FrontEnd.PROCESSOR);
  }

  @TestFactory
  Stream<DynamicTest> errorProneReportsEveryBugAtItsLine() throws IOException {
    return tests("bugs", FrontEnd.ERROR_PRONE);
  }

  @TestFactory
  Stream<DynamicTest> errorProneFindsNothingInCorrectPrograms() throws IOException {
    return tests("correct", FrontEnd.ERROR_PRONE);
  }

  private static Stream<DynamicTest> tests(String folder, FrontEnd frontEnd) throws IOException {
    return files(folder).stream()
        .map(
            f ->
                DynamicTest.dynamicTest(
                    f.getFileName().toString(),
                    () -> {
                      assertTrue(
                          folder.equals("bugs") || expected(f).isEmpty(),
                          f + " must not expect findings");
                      check(f, frontEnd);
                    }));
  }

  @Test
  void galleryFigures() throws IOException {
    int bugs = 0;
    int caught = 0;
    for (Path f : files("bugs")) {
      List<String> expected = expected(f);
      List<String> actual = actual(compile(f, FrontEnd.PROCESSOR), expected, FrontEnd.PROCESSOR);
      bugs += expected.size();
      for (String e : expected) {
        caught += actual.contains(e) ? 1 : 0;
      }
    }
    int falseReports = 0;
    for (Path f : files("correct")) {
      falseReports +=
          actual(compile(f, FrontEnd.PROCESSOR), new ArrayList<>(), FrontEnd.PROCESSOR).size();
    }
    System.out.printf(
        "gallery: %d of %d bugs caught; %d false reports in %d correct programs%n",
        caught, bugs, falseReports, files("correct").size());
    assertEquals(bugs, caught);
    assertEquals(0, falseReports);
  }
}
