package dev.ondevice.samples.gallery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import dev.ondevice.processor.OnDeviceProcessor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The gallery, compiled with the processor against the real runtime: every device bug in {@code
 * gallery/bugs} is reported with the expected check at the expected line ({@code // expect: ID},
 * {@code // expect: warning ID}, {@code // expect-error: message}), and the device-agnostic
 * programs in {@code gallery/correct} compile without a single diagnostic.
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

  static Compilation compile(Path file) throws IOException {
    String text = Files.readString(file);
    String name = "gallery." + file.getParent().getFileName() + "." + file.getFileName().toString()
        .replace(".java", "");
    JavaFileObject source = JavaFileObjects.forSourceString(name, text);
    return Compiler.javac().withProcessors(new OnDeviceProcessor()).compile(source);
  }

  /** Expected diagnostics of a file: "line kind ID" or "line error ~message fragment". */
  static TreeSet<String> expected(Path file) throws IOException {
    TreeSet<String> out = new TreeSet<>();
    List<String> lines = Files.readAllLines(file);
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = EXPECT.matcher(lines.get(i));
      if (m.find()) {
        for (String item : m.group(1).split(",")) {
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
    return out;
  }

  /** Actual diagnostics, in the form of {@link #expected}; plain errors matched against the expected fragments. */
  static TreeSet<String> actual(Compilation c, TreeSet<String> expected) {
    TreeSet<String> out = new TreeSet<>();
    for (Diagnostic<? extends JavaFileObject> d : c.diagnostics()) {
      if (d.getKind() != Diagnostic.Kind.ERROR && d.getKind() != Diagnostic.Kind.WARNING) {
        continue;
      }
      String kind = d.getKind() == Diagnostic.Kind.ERROR ? "error" : "warning";
      String message = d.getMessage(Locale.ROOT);
      Matcher m = ID.matcher(message);
      if (m.find()) {
        out.add(d.getLineNumber() + " " + kind + " " + m.group(1));
        continue;
      }
      String plain = d.getLineNumber() + " " + kind + " ~";
      String match = expected.stream().filter(x -> x.startsWith(plain) && message.contains(x.substring(plain.length())))
          .findFirst().orElse(plain + message);
      out.add(match);
    }
    return out;
  }

  private static void check(Path file) throws IOException {
    Compilation c = compile(file);
    TreeSet<String> expected = expected(file);
    List<String> all = new ArrayList<>();
    c.diagnostics().forEach(d -> all.add(d.getLineNumber() + ": " + d.getMessage(Locale.ROOT)));
    assertEquals(String.join("\n", expected), String.join("\n", actual(c, expected)),
        file + ": diagnostics differ; all of them:\n" + String.join("\n", all));
  }

  @TestFactory
  Stream<DynamicTest> everyBugIsReportedAtItsLine() throws IOException {
    return files("bugs").stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> check(f)));
  }

  @TestFactory
  Stream<DynamicTest> correctProgramsCompileWithoutDiagnostics() throws IOException {
    return files("correct").stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
      assertTrue(expected(f).isEmpty(), f + " must not expect findings");
      check(f);
    }));
  }

  @Test
  void galleryFigures() throws IOException {
    int bugs = 0;
    int caught = 0;
    for (Path f : files("bugs")) {
      TreeSet<String> expected = expected(f);
      TreeSet<String> actual = actual(compile(f), expected);
      bugs += expected.size();
      for (String e : expected) {
        caught += actual.contains(e) ? 1 : 0;
      }
    }
    int falseReports = 0;
    for (Path f : files("correct")) {
      falseReports += actual(compile(f), new TreeSet<>()).size();
    }
    System.out.printf("gallery: %d of %d bugs caught; %d false reports in %d correct programs%n", caught, bugs,
        falseReports, files("correct").size());
    assertEquals(bugs, caught);
    assertEquals(0, falseReports);
  }
}
