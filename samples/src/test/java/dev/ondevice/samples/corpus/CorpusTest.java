package dev.ondevice.samples.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ondevice.Device;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The corpus of real device bugs and real correct programs ({@code samples/corpus}, see its
 * README): the analysis's figures on code it was not written for. Fails on any report in a correct
 * program, on any bug line listed in {@code caught.txt} that is no longer caught, and on a case
 * whose run on an emulated {@code cuda:0} does not do what its header says.
 *
 * <p>Run with {@code -Dcorpus.updateCaught=true} to rewrite {@code caught.txt} after the analysis
 * catches more; review the diff before committing it.
 */
class CorpusTest {
  private static final Path CORPUS = Path.of("corpus");
  private static final Path CAUGHT = CORPUS.resolve("caught.txt");
  private static final Device CUDA = Device.parse("cuda:0");

  @TempDir static Path work;
  private static List<CorpusCase> bugs;
  private static List<CorpusCase> correct;

  @BeforeAll
  static void readTheCorpus() throws IOException {
    bugs = CorpusCase.in(CORPUS, "bugs");
    correct = CorpusCase.in(CORPUS, "correct");
  }

  @Test
  void everyCaseNamesItsSourceAndOutcome() {
    for (CorpusCase c : bugs) {
      assertNotNull(c.source(), c.name() + ": no Source: link");
      assertNotNull(c.outcome(), c.name() + ": no Outcome:");
      assertFalse(c.bugLines().isEmpty(), c.name() + ": no // bug: line");
      c.bugLines()
          .values()
          .forEach(
              category ->
                  assertTrue(
                      CorpusCase.CATEGORIES.contains(category),
                      c.name()
                          + ": unknown category "
                          + category
                          + ", use one of "
                          + CorpusCase.CATEGORIES));
    }
    for (CorpusCase c : correct) {
      assertNotNull(c.source(), c.name() + ": no Source: link");
      assertEquals(
          "completes", String.valueOf(c.outcome()), c.name() + ": a correct program completes");
      assertTrue(c.bugLines().isEmpty(), c.name() + ": a correct program has no // bug: line");
    }
  }

  /**
   * Each correct program compiles with the analysis on and gets no diagnostic, except the warnings
   * of a performance check on the lines marked as costing time by it ({@code // costs time: ID}).
   */
  @TestFactory
  Stream<DynamicTest> correctProgramsGetNoReport() {
    return correct.stream()
        .map(
            c ->
                DynamicTest.dynamicTest(
                    c.name(),
                    () -> {
                      CorpusCompiler.Result r = analyse(c);
                      assertEquals(
                          "",
                          r.reports().stream()
                              .filter(report -> !c.costsTime(report))
                              .map(Object::toString)
                              .collect(Collectors.joining("\n")));
                      assertTrue(r.success());
                    }));
  }

  /**
   * Prints the bug lines caught by category: reported at the line itself, or only at a line where
   * the same bug shows ({@code // same bug}: where it crashes, where the wrong tensor is passed).
   * Fails when a line of {@code caught.txt} is no longer caught as well as it was, or a bug file
   * gets a report on a line that is none of these nor marked as costing time.
   */
  @Test
  void figuresAndNoRegression() throws IOException {
    Map<String, int[]> byCategory = new LinkedHashMap<>();
    CorpusCase.CATEGORIES.forEach(k -> byCategory.put(k, new int[3]));
    TreeSet<String> caught = new TreeSet<>();
    List<String> missed = new ArrayList<>();
    List<String> stray = new ArrayList<>();
    for (CorpusCase c : bugs) {
      List<CorpusCompiler.Report> reports = analyse(c).reports();
      boolean shownElsewhere =
          reports.stream().anyMatch(r -> c.sameBugLines().contains((int) r.line()));
      for (Map.Entry<Integer, String> bug : c.bugLines().entrySet()) {
        int[] counts = byCategory.get(bug.getValue());
        counts[2]++;
        String line = c.name() + ":" + bug.getKey();
        if (reports.stream().anyMatch(r -> r.line() == bug.getKey())) {
          counts[0]++;
          caught.add(line);
        } else if (shownElsewhere) {
          counts[1]++;
          caught.add(line + " (elsewhere)");
        } else {
          missed.add(line + " (" + bug.getValue() + ")");
        }
      }
      reports.stream()
          .filter(
              r ->
                  !c.bugLines().containsKey((int) r.line())
                      && !c.costsTime(r)
                      && !c.otherBug(r)
                      && !c.sameBugLines().contains((int) r.line()))
          .forEach(r -> stray.add(r.toString()));
    }
    int total = byCategory.values().stream().mapToInt(n -> n[2]).sum();
    int atLine = byCategory.values().stream().mapToInt(n -> n[0]).sum();
    int elsewhere = byCategory.values().stream().mapToInt(n -> n[1]).sum();
    StringBuilder figures =
        new StringBuilder(
            String.format(
                "corpus: %d of %d bug lines caught at the line (%.0f%%),"
                    + " %d more reported only where the same bug shows (%.0f%% in all), in %d bug files; %d correct programs%n",
                atLine,
                total,
                100.0 * atLine / Math.max(1, total),
                elsewhere,
                100.0 * (atLine + elsewhere) / Math.max(1, total),
                bugs.size(),
                correct.size()));
    figures.append(
        String.format("  %-20s %8s %10s %6s%n", "category", "at line", "elsewhere", "lines"));
    byCategory.forEach(
        (k, n) -> figures.append(String.format("  %-20s %8d %10d %6d%n", k, n[0], n[1], n[2])));
    figures.append("missed:\n");
    missed.forEach(m -> figures.append("  ").append(m).append('\n'));
    System.out.print(figures);

    if (Boolean.getBoolean("corpus.updateCaught")) {
      Files.writeString(CAUGHT, String.join("\n", caught) + "\n");
    }
    TreeSet<String> before = new TreeSet<>(Files.readAllLines(CAUGHT));
    before.removeIf(String::isBlank);
    before.removeIf(b -> caught.contains(b) || caught.contains(b.replace(" (elsewhere)", "")));
    assertEquals(
        List.of(),
        List.copyOf(before),
        "bug lines caught before and missed now (or only elsewhere now)");
    assertEquals(List.of(), stray, "reports on lines that are not bug lines");
  }

  /**
   * Every case compiled with the analysis off and run on an emulated {@code cuda:0}: the bugs fail
   * as their headers say (so they are real bugs of this API), the correct programs complete.
   */
  @Test
  void casesBehaveOnTheDeviceAsTheirHeadersSay() throws Exception {
    assumeTrue(
        System.getProperty("ondevice.emulatedCudaDevices") != null,
        "the cases run on emulated CUDA devices (-Dondevice.emulatedCudaDevices=2, as the build sets)");
    List<CorpusCase> all = new ArrayList<>(bugs);
    all.addAll(correct);
    List<CorpusCase> runnable =
        all.stream()
            .filter(c -> c.outcome().kind() != CorpusCase.Outcome.Kind.BUILD_ERROR)
            .toList();
    Path classes = work.resolve("classes");
    CorpusCompiler.Result build =
        CorpusCompiler.compile(
            runnable.stream().map(CorpusCase::file).toList(), classes, "-Aondevice.analysis=off");
    assertTrue(build.success(), build.reports().toString());
    List<String> wrong = new ArrayList<>();
    try (URLClassLoader loader =
        new URLClassLoader(
            new URL[] {classes.toUri().toURL()}, CorpusTest.class.getClassLoader())) {
      for (CorpusCase c : runnable) {
        String outcome = run(loader, c);
        if (!outcome.equals(c.outcome().toString())) {
          wrong.add(c.name() + ": expected " + c.outcome() + ", got " + outcome);
        }
      }
    }
    for (CorpusCase c : all) {
      if (c.outcome().kind() == CorpusCase.Outcome.Kind.BUILD_ERROR
          && CorpusCompiler.compile(
                  List.of(c.file()), work.resolve("rejected"), "-Aondevice.analysis=off")
              .success()) {
        wrong.add(c.name() + ": expected a build error, but it compiles");
      }
    }
    assertEquals(List.of(), wrong);
  }

  /** "completes", or "throws X" for the first exception of the cause chain named in the header. */
  private static String run(ClassLoader loader, CorpusCase c) throws ReflectiveOperationException {
    PrintStream out = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream()));
    try {
      loader.loadClass(c.className()).getMethod("run", Device.class).invoke(null, CUDA);
      return "completes";
    } catch (InvocationTargetException e) {
      Throwable t = e.getCause();
      String expected = c.outcome().exception();
      for (Throwable cause = t; cause != null; cause = cause.getCause()) {
        if (cause.getClass().getSimpleName().equals(expected)) {
          return "throws " + expected;
        }
      }
      return "throws " + t.getClass().getSimpleName() + ": " + t.getMessage();
    } finally {
      System.setOut(out);
    }
  }

  private static CorpusCompiler.Result analyse(CorpusCase c) throws IOException {
    return CorpusCompiler.compile(
        List.of(c.file()), work.resolve("analysed"), "-Aondevice.analysis=on");
  }
}
