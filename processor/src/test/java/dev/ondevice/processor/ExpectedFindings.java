package dev.ondevice.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.testing.compile.Compilation;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;

/**
 * Compares the findings of a compilation with markers in the source: a line ending in {@code //
 * expect: ID} (or {@code // expect: ID, ID}) must get exactly those diagnostics, and no other line
 * any. Each diagnostic is pinned by ID, file and line; its kind (error or warning) is checked
 * against {@code // expect: warning ID}.
 */
final class ExpectedFindings {
  private static final Pattern MARKER = Pattern.compile("//\\s*expect:\\s*(.*)$");
  private static final Pattern ID = Pattern.compile("^\\[([A-Za-z]+)\\]");

  private ExpectedFindings() {}

  /** The expected {@code file:line kind ID} entries of a source text. */
  static SortedSet<String> expected(String fileName, String text) {
    TreeSet<String> out = new TreeSet<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      Matcher m = MARKER.matcher(lines[i]);
      if (m.find()) {
        for (String item : m.group(1).split(",", -1)) {
          String s = item.trim();
          String kind = s.startsWith("warning ") ? "warning" : "error";
          out.add(fileName + ":" + (i + 1) + " " + kind + " " + s.replaceFirst("^warning ", ""));
        }
      }
    }
    return out;
  }

  /** The actual {@code file:line kind ID} entries of the device analysis in a compilation. */
  static SortedSet<String> actual(Compilation c) {
    TreeSet<String> out = new TreeSet<>();
    for (Diagnostic<? extends JavaFileObject> d : c.diagnostics()) {
      if (d.getKind() != Diagnostic.Kind.ERROR && d.getKind() != Diagnostic.Kind.WARNING) {
        continue;
      }
      String message = d.getMessage(Locale.ROOT);
      Matcher m = ID.matcher(message);
      String id = m.find() ? m.group(1) : "javac(" + message + ")";
      String file = d.getSource() == null ? "?" : fileName(d.getSource());
      out.add(
          file
              + ":"
              + d.getLineNumber()
              + " "
              + (d.getKind() == Diagnostic.Kind.ERROR ? "error" : "warning")
              + " "
              + id);
    }
    return out;
  }

  /** Asserts the findings of {@code c} are exactly those the markers of {@code sources} expect. */
  static void assertMatch(Compilation c, List<JavaFileObject> sources) {
    TreeSet<String> expected = new TreeSet<>();
    for (JavaFileObject f : sources) {
      try {
        expected.addAll(expected(fileName(f), f.getCharContent(true).toString()));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    assertEquals(
        String.join("\n", expected),
        String.join("\n", actual(c)),
        "diagnostics differ; all of them:\n" + String.join("\n", messages(c)));
  }

  private static List<String> messages(Compilation c) {
    List<String> out = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : c.diagnostics()) {
      out.add(d.getLineNumber() + ": " + d.getMessage(Locale.ROOT));
    }
    return out;
  }

  private static String fileName(JavaFileObject f) {
    String n = f.getName();
    return n.substring(n.lastIndexOf('/') + 1);
  }
}
