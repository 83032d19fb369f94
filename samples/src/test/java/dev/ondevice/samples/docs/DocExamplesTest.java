package dev.ondevice.samples.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * The diagnostics the documentation promises are the ones the processor prints.
 *
 * <p>Every Markdown page under {@code docs/} and the root {@code README.md} is scanned for output
 * blocks (a fenced block without a language) that show a device check's report, a line {@code
 * error: [ID] message} or {@code warning: [ID] message} (optionally after {@code File.java:N: }).
 * Such a block is checked in one of two ways:
 *
 * <ul>
 *   <li><b>After a {@code java} block</b> (blank lines between them allowed), the java block is the
 *       program: it is compiled on its own, with the real runtime and {@link OnDeviceProcessor},
 *       after a fixed line of imports that the pages' snippets assume ({@link #IMPORTS}, written on
 *       the snippet's first line so that line numbers are the snippet's own, as a reader counts
 *       them, including the ones messages name, such as {@code (line 5)}). It must compile without
 *       other errors, and each diagnostic shown must be printed with the same kind (error or
 *       warning), the same ID and the same message, compared after collapsing whitespace (pages
 *       wrap long messages), on the line the echoed source line under it is in the snippet (and at
 *       its caret's column, when the echoed line is the snippet's line as written), and on the line
 *       of a {@code File.java:N:} prefix. The processor must not report any other finding in the
 *       snippet: a page shows all of its findings.
 *   <li><b>After prose</b> (a message quoted on its own, or the same report shown again on another
 *       page), the message must be one that a snippet checked the first way gets, with the same
 *       kind and ID.
 * </ul>
 *
 * <p>A java block that is deliberately not a program (a fragment), or an output block that no
 * snippet can show (a report of the analysis failing), is marked with an HTML comment {@code <!--
 * not compiled: why -->} on the lines before it; the test lists those, and never skips a block
 * silently. Every mismatch is reported at once, with the page, the line of the snippet's fence and
 * its first line, so that a doc writer sees what to change. The processor is the reference: when
 * they differ, the page is what to fix, unless the message itself is wrong.
 */
class DocExamplesTest {
  private static final Path ROOT = Path.of("..");

  /** What the pages' snippets leave out: the imports of the library's packages and java.util. */
  static final String IMPORTS =
      Stream.of(
              "dev.ondevice",
              "dev.ondevice.nn",
              "dev.ondevice.optim",
              "dev.ondevice.data",
              "dev.ondevice.io",
              "dev.ondevice.train",
              "dev.ondevice.annotations",
              "java.util")
          .map(p -> "import " + p + ".*; ")
          .reduce("", String::concat);

  private static final Pattern FENCE_OPEN = Pattern.compile("^(\\s*)```([A-Za-z]*)\\s*$");
  private static final Pattern FENCE_CLOSE = Pattern.compile("^\\s*```\\s*$");
  private static final Pattern MARKER =
      Pattern.compile("^\\s*<!--\\s*not compiled:\\s*(.*?)\\s*-->\\s*$");
  private static final Pattern HEAD =
      Pattern.compile("^\\s*(?:(\\w+\\.java):(\\d+): )?(error|warning): \\[([A-Za-z]+)\\] (.*)$");
  private static final Pattern CARET = Pattern.compile("^\\s*\\^\\s*$");
  private static final Pattern ID = Pattern.compile("^\\[([A-Za-z]+)\\] ");
  private static final Pattern PUBLIC_TYPE =
      Pattern.compile(
          "(?m)^public\\s+(?:(?:final|abstract)\\s+)*(?:class|interface|record|enum)\\s+(\\w+)");

  /**
   * A fenced block: its language ("" for output), the 1-based line of its opening fence, its lines.
   */
  record Block(Path doc, String lang, int line, List<String> body, String notCompiled) {
    String where() {
      String first = body.stream().filter(s -> !s.isBlank()).findFirst().orElse("").trim();
      return ROOT.relativize(doc).normalize() + ":" + line + " (" + first + ")";
    }
  }

  /** A diagnostic shown in an output block. */
  record Shown(
      String kind, String id, String message, Integer prefixLine, String source, int caretColumn) {
    @Override
    public String toString() {
      return kind + ": [" + id + "] " + message;
    }
  }

  /** A diagnostic the processor printed, with its line and column in the snippet. */
  record Printed(String kind, String id, String message, long line, long column) {
    @Override
    public String toString() {
      return "line " + line + ":" + column + ": " + kind + ": [" + id + "] " + message;
    }
  }

  static String normalise(String s) {
    return s.strip().replaceAll("\\s+", " ");
  }

  /** The pages: docs/**.md and the README. */
  static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    try (Stream<Path> s = Files.walk(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    pages.add(ROOT.resolve("README.md"));
    return pages;
  }

  /** The fenced blocks of a page, with the marker before each, if any. */
  static List<Block> blocks(Path doc) throws IOException {
    List<String> lines = Files.readAllLines(doc);
    List<Block> out = new ArrayList<>();
    String marker = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      Matcher open = FENCE_OPEN.matcher(line);
      if (!open.matches()) {
        Matcher m = MARKER.matcher(line);
        if (m.matches()) {
          marker = m.group(1);
        } else if (!line.isBlank()) {
          marker = null;
        }
        continue;
      }
      int indent = open.group(1).length();
      int start = i;
      List<String> body = new ArrayList<>();
      for (i++; i < lines.size() && !FENCE_CLOSE.matcher(lines.get(i)).matches(); i++) {
        String b = lines.get(i);
        int strip = 0;
        while (strip < indent && strip < b.length() && b.charAt(strip) == ' ') {
          strip++;
        }
        body.add(b.substring(strip));
      }
      out.add(new Block(doc, open.group(2), start + 1, body, marker));
      marker = null;
    }
    return out;
  }

  /** Whether only blank lines separate two blocks of a page. */
  static boolean adjacent(List<String> lines, Block a, Block b) {
    int end = a.line() + a.body().size(); // the 0-based index of a's closing fence
    for (int i = end + 1; i < b.line() - 1; i++) {
      if (!lines.get(i).isBlank()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The diagnostics an output block shows: the message (wrapped or not), then the echoed line and
   * caret.
   */
  static List<Shown> shown(Block output) {
    List<Shown> out = new ArrayList<>();
    List<String> lines = output.body();
    for (int i = 0; i < lines.size(); i++) {
      Matcher h = HEAD.matcher(lines.get(i));
      if (!h.matches()) {
        continue;
      }
      StringBuilder message = new StringBuilder(h.group(5));
      String source = null;
      int caret = -1;
      int j = i + 1;
      while (j < lines.size() && !HEAD.matcher(lines.get(j)).matches()) {
        if (j + 1 < lines.size() && CARET.matcher(lines.get(j + 1)).matches()) {
          source = lines.get(j);
          caret = lines.get(j + 1).indexOf('^') + 1;
          break;
        }
        if (CARET.matcher(lines.get(j)).matches()) {
          break;
        }
        message.append(' ').append(lines.get(j));
        j++;
      }
      out.add(
          new Shown(
              h.group(3),
              h.group(4),
              normalise(message.toString()),
              h.group(2) == null ? null : Integer.valueOf(h.group(2)),
              source,
              caret));
    }
    return out;
  }

  /** Compiles a snippet with the processor; the header of imports shares its first line. */
  static Compilation compile(List<String> snippet) {
    String text = IMPORTS + String.join("\n", snippet) + "\n";
    Matcher p = PUBLIC_TYPE.matcher(text.substring(IMPORTS.length()));
    String name = p.find() ? p.group(1) : "Snippet";
    JavaFileObject source = JavaFileObjects.forSourceString(name, text);
    return Compiler.javac().withProcessors(new OnDeviceProcessor()).compile(source);
  }

  static List<Printed> printed(Compilation c, List<String> errors) {
    List<Printed> out = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : c.diagnostics()) {
      if (d.getKind() != Diagnostic.Kind.ERROR
          && d.getKind() != Diagnostic.Kind.WARNING
          && d.getKind() != Diagnostic.Kind.MANDATORY_WARNING) {
        continue;
      }
      String kind = d.getKind() == Diagnostic.Kind.ERROR ? "error" : "warning";
      String message = d.getMessage(Locale.ROOT);
      long line = d.getLineNumber();
      long column = line == 1 ? d.getColumnNumber() - IMPORTS.length() : d.getColumnNumber();
      Matcher m = ID.matcher(message);
      if (m.find()) {
        out.add(new Printed(kind, m.group(1), normalise(message.substring(m.end())), line, column));
      } else if (kind.equals("error")) {
        errors.add("line " + line + ": " + message);
      }
    }
    return out;
  }

  /**
   * The snippet's lines a shown diagnostic's echoed source line can be; empty when it shows none.
   */
  static List<Integer> candidateLines(List<String> snippet, String source) {
    List<Integer> exact = new ArrayList<>();
    List<Integer> trimmed = new ArrayList<>();
    for (int i = 0; i < snippet.size(); i++) {
      if (snippet.get(i).stripTrailing().equals(source.stripTrailing())) {
        exact.add(i + 1);
      }
      if (snippet.get(i).strip().equals(source.strip())) {
        trimmed.add(i + 1);
      }
    }
    return exact.isEmpty() ? trimmed : exact;
  }

  @Test
  void everyDiagnosticThePagesShowIsPrinted() throws IOException {
    List<String> problems = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    List<Printed> everything = new ArrayList<>();
    List<Block> prose = new ArrayList<>();
    int snippets = 0;
    int diagnostics = 0;
    for (Path doc : pages()) {
      List<String> lines = Files.readAllLines(doc);
      List<Block> blocks = blocks(doc);
      for (int k = 0; k < blocks.size(); k++) {
        Block output = blocks.get(k);
        if (!output.lang().isEmpty() || shown(output).isEmpty()) {
          continue;
        }
        Block code =
            k > 0
                    && blocks.get(k - 1).lang().equals("java")
                    && adjacent(lines, blocks.get(k - 1), output)
                ? blocks.get(k - 1)
                : null;
        if (code == null) {
          if (output.notCompiled() != null) {
            skipped.add(output.where() + ": " + output.notCompiled());
          } else {
            prose.add(output);
          }
          continue;
        }
        if (code.notCompiled() != null) {
          skipped.add(code.where() + ": " + code.notCompiled());
          continue;
        }
        snippets++;
        List<String> errors = new ArrayList<>();
        List<Printed> printed = printed(compile(code.body()), errors);
        everything.addAll(printed);
        List<String> wrong = new ArrayList<>();
        errors.forEach(e -> wrong.add("does not compile: " + e));
        List<Printed> unmatched = new ArrayList<>(printed);
        for (Shown s : shown(output)) {
          diagnostics++;
          List<Integer> candidates =
              s.source() == null ? List.of() : candidateLines(code.body(), s.source());
          if (s.source() != null && candidates.isEmpty()) {
            wrong.add(
                "the line shown under " + s.id() + " is not in the snippet: " + s.source().strip());
          }
          boolean exactEcho =
              candidates.size() == 1
                  && code.body()
                      .get(candidates.get(0) - 1)
                      .stripTrailing()
                      .equals(s.source().stripTrailing());
          Printed match =
              unmatched.stream()
                  .filter(
                      p ->
                          p.kind().equals(s.kind())
                              && p.id().equals(s.id())
                              && p.message().equals(s.message()))
                  .filter(p -> candidates.isEmpty() || candidates.contains((int) p.line()))
                  .filter(p -> !exactEcho || p.column() == s.caretColumn())
                  .filter(p -> s.prefixLine() == null || p.line() == s.prefixLine())
                  .findFirst()
                  .orElse(null);
          if (match != null) {
            unmatched.remove(match);
          } else {
            wrong.add(
                "shown:   "
                    + s
                    + (candidates.isEmpty()
                        ? ""
                        : " at line " + candidates + (exactEcho ? ":" + s.caretColumn() : ""))
                    + (s.prefixLine() == null ? "" : " (prefix line " + s.prefixLine() + ")"));
          }
        }
        if (!wrong.isEmpty() || !unmatched.isEmpty()) {
          unmatched.forEach(p -> wrong.add("printed, not shown: " + p));
          StringBuilder b = new StringBuilder(code.where() + ":");
          wrong.forEach(w -> b.append("\n    ").append(w));
          b.append("\n  the processor printed:");
          printed.forEach(p -> b.append("\n    ").append(p));
          problems.add(b.toString());
        }
      }
    }
    for (Block output : prose) {
      for (Shown s : shown(output)) {
        diagnostics++;
        boolean found =
            everything.stream()
                .anyMatch(
                    p ->
                        p.kind().equals(s.kind())
                            && p.id().equals(s.id())
                            && p.message().equals(s.message()));
        if (!found) {
          problems.add(
              output.where()
                  + ": no compiled snippet gets this diagnostic shown after prose"
                  + " (show the program in a java block before it, or mark it <!-- not compiled: why -->):\n    "
                  + s);
        }
      }
    }
    System.out.printf(
        "doc examples: %d snippets compiled, %d diagnostics checked (%d blocks after prose), %d blocks "
            + "marked not compiled%n",
        snippets, diagnostics, prose.size(), skipped.size());
    skipped.forEach(s -> System.out.println("  not compiled: " + s));
    if (!problems.isEmpty()) {
      fail(
          problems.size()
              + " doc examples differ from what the processor prints:\n\n"
              + String.join("\n\n", problems));
    }
    assertTrue(
        snippets > 0, "no doc snippet with a diagnostic was found under " + ROOT.resolve("docs"));
  }
}
