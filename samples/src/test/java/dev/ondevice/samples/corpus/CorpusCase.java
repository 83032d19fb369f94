package dev.ondevice.samples.corpus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One file of the corpus, as its header and markers describe it: where it comes from, the lines a
 * diagnostic must point at ({@code // bug: category}), and what {@code run(cuda:0)} does.
 */
record CorpusCase(
    Path file,
    String className,
    String source,
    Map<Integer, String> bugLines,
    Map<Integer, List<String>> costsTime,
    Map<Integer, String> otherBugs,
    java.util.Set<Integer> sameBugLines,
    Outcome outcome) {
  /** The categories of bug lines, in the order the figures print them. */
  static final List<String> CATEGORIES =
      List.of(
          "in-method",
          "across-methods",
          "held-outside-models",
          "per-step",
          "training-state",
          "declaration");

  private static final Pattern BUG = Pattern.compile("//\\s*bug:\\s*([a-z-]+)\\s*$");

  /**
   * A line where the bug of the case shows again ({@code // same bug}): a report there is no false
   * report.
   */
  private static final Pattern SAME_BUG = Pattern.compile("//\\s*same bug\\b");

  /**
   * A line of a correct program that costs time as its authors wrote it (a host read every batch, a
   * tensor created and then moved): the performance check named may warn there.
   */
  private static final Pattern COSTS_TIME = Pattern.compile("//\\s*costs time:\\s*([A-Za-z, ]+)$");

  /**
   * A line where the authors' code has another real bug than the case's, which the named check
   * reports ({@code // another bug: DiscardedTensorOp} on a {@code x.view(...)} whose result is
   * dropped): a report of that check there is no false report, and counts for nothing.
   */
  private static final Pattern ANOTHER_BUG =
      Pattern.compile("//\\s*another bug:\\s*([A-Za-z]+)\\s*$");

  private static final Pattern SOURCE = Pattern.compile("Source:\\s*(https?://\\S+)");
  private static final Pattern OUTCOME =
      Pattern.compile("Outcome:\\s*(throws\\s+(\\w+)|completes|build error)");

  /** What running the case on an emulated {@code cuda:0} does. */
  record Outcome(Kind kind, String exception) {
    enum Kind {
      THROWS,
      COMPLETES,
      BUILD_ERROR
    }

    @Override
    public String toString() {
      return kind == Kind.THROWS
          ? "throws " + exception
          : kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    }
  }

  /** The corpus's files in {@code folder} ({@code bugs} or {@code correct}), sorted by name. */
  static List<CorpusCase> in(Path corpus, String folder) throws IOException {
    try (Stream<Path> s = Files.list(corpus.resolve(folder))) {
      List<Path> files = s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
      List<CorpusCase> out = new java.util.ArrayList<>();
      for (Path f : files) {
        out.add(read(f, "corpus." + folder));
      }
      return out;
    }
  }

  static CorpusCase read(Path file, String pkg) throws IOException {
    List<String> lines = Files.readAllLines(file);
    Map<Integer, String> bugs = new TreeMap<>();
    Map<Integer, List<String>> costsTime = new TreeMap<>();
    Map<Integer, String> otherBugs = new TreeMap<>();
    java.util.Set<Integer> sameBug = new java.util.TreeSet<>();
    for (int i = 0; i < lines.size(); i++) {
      if (SAME_BUG.matcher(lines.get(i)).find()) {
        sameBug.add(i + 1);
      }
      Matcher m = BUG.matcher(lines.get(i));
      if (m.find()) {
        bugs.put(i + 1, m.group(1));
      }
      Matcher t = COSTS_TIME.matcher(lines.get(i));
      if (t.find()) {
        costsTime.put(i + 1, List.of(t.group(1).trim().split("\\s*,\\s*")));
      }
      Matcher a = ANOTHER_BUG.matcher(lines.get(i));
      if (a.find()) {
        otherBugs.put(i + 1, a.group(1));
      }
    }
    String text = String.join("\n", lines);
    String source =
        Optional.of(SOURCE.matcher(text)).filter(Matcher::find).map(m -> m.group(1)).orElse(null);
    Matcher o = OUTCOME.matcher(text);
    Outcome outcome =
        !o.find()
            ? null
            : o.group(2) != null
                ? new Outcome(Outcome.Kind.THROWS, o.group(2))
                : o.group(1).equals("completes")
                    ? new Outcome(Outcome.Kind.COMPLETES, null)
                    : new Outcome(Outcome.Kind.BUILD_ERROR, null);
    String name = file.getFileName().toString().replace(".java", "");
    return new CorpusCase(
        file, pkg + "." + name, source, bugs, costsTime, otherBugs, sameBug, outcome);
  }

  /**
   * Whether {@code r} is a warning of a performance check on a line marked as costing time by it.
   */
  boolean costsTime(CorpusCompiler.Report r) {
    return !r.error()
        && costsTime.getOrDefault((int) r.line(), List.of()).stream()
            .anyMatch(id -> r.message().startsWith("[" + id + "]"));
  }

  /**
   * Whether {@code r} is the named check's report of another real bug on a line marked {@code //
   * another bug: ID}.
   */
  boolean otherBug(CorpusCompiler.Report r) {
    String id = otherBugs.get((int) r.line());
    return id != null && r.message().startsWith("[" + id + "]");
  }

  /** The file's name, as the figures and the baseline name it. */
  String name() {
    return file.getFileName().toString();
  }
}
