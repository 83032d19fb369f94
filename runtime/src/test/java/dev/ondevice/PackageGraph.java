package dev.ondevice;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

/**
 * The dependencies between the runtime's packages, as {@code jdeps -verbose:class} reports them
 * from the compiled classes: which package names which, and through which classes. {@link #cycle()}
 * finds a cycle, and {@link #describe(List)} names it with a class edge for each step.
 */
final class PackageGraph {
  private static final Pattern EDGE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)\\s.*$");

  /** package -> package it names -> one class edge that does it ("A -> B"). */
  private final Map<String, Map<String, String>> edges = new TreeMap<>();

  /** Adds that class {@code from} names class {@code to}; edges within a package are left out. */
  void add(String from, String to) {
    String a = packageOf(from);
    String b = packageOf(to);
    if (!a.equals(b)) {
      edges
          .computeIfAbsent(a, k -> new TreeMap<>())
          .putIfAbsent(b, simple(from) + " -> " + simple(to));
      edges.computeIfAbsent(b, k -> new TreeMap<>());
    }
  }

  /**
   * The class-level dependencies of the classes under {@code classes} (a folder or a jar) on
   * classes of {@code prefix}, by the JDK's own {@code jdeps}.
   */
  static PackageGraph jdeps(Path classes, String prefix) {
    ToolProvider jdeps =
        ToolProvider.findFirst("jdeps")
            .orElseThrow(() -> new IllegalStateException("the JDK running the build has no jdeps"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int rc =
        jdeps.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "-verbose:class",
            "-filter:none",
            "--module-path",
            modulePath(classes),
            "--multi-release",
            String.valueOf(Runtime.version().feature()),
            classes.toString());
    if (rc != 0) {
      throw new IllegalStateException("jdeps failed (" + rc + "): " + err);
    }
    PackageGraph g = new PackageGraph();
    for (String line : (Iterable<String>) out.toString().lines()::iterator) {
      Matcher m = EDGE.matcher(line);
      if (m.matches() && m.group(1).startsWith(prefix) && m.group(2).startsWith(prefix)) {
        g.add(m.group(1), m.group(2));
      }
    }
    return g;
  }

  /**
   * The modules that the runtime's {@code module-info} requires, for jdeps to resolve them: the
   * jars of this JVM's class path, and its folders that hold a module (the annotations' classes in
   * a reactor build), {@code classes} itself left out.
   */
  private static String modulePath(Path classes) {
    List<String> entries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator, -1)) {
      Path p = Path.of(entry);
      boolean module =
          entry.endsWith(".jar") || Files.isRegularFile(p.resolve("module-info.class"));
      if (module && !p.toAbsolutePath().equals(classes.toAbsolutePath())) {
        entries.add(entry);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /** The packages. */
  Set<String> packages() {
    return edges.keySet();
  }

  /** The packages {@code p} names. */
  Set<String> dependencies(String p) {
    return edges.getOrDefault(p, Map.of()).keySet();
  }

  /** A class edge by which {@code from} names {@code to}, as {@code A -> B}. */
  String via(String from, String to) {
    return edges.get(from).get(to);
  }

  /** A cycle of packages, first package repeated at the end; empty when there is none. */
  Optional<List<String>> cycle() {
    Map<String, Integer> state = new TreeMap<>(); // 1: on the path, 2: done
    List<String> path = new ArrayList<>();
    for (String p : edges.keySet()) {
      Optional<List<String>> c = visit(p, state, path);
      if (c.isPresent()) {
        return c;
      }
    }
    return Optional.empty();
  }

  private Optional<List<String>> visit(String p, Map<String, Integer> state, List<String> path) {
    Integer s = state.get(p);
    if (s != null && s == 2) {
      return Optional.empty();
    }
    if (s != null) {
      List<String> c = new ArrayList<>(path.subList(path.indexOf(p), path.size()));
      c.add(p);
      return Optional.of(c);
    }
    state.put(p, 1);
    path.add(p);
    for (String q : dependencies(p)) {
      Optional<List<String>> c = visit(q, state, path);
      if (c.isPresent()) {
        return c;
      }
    }
    path.remove(path.size() - 1);
    state.put(p, 2);
    return Optional.empty();
  }

  /**
   * The message for {@code cycle}: {@code Package cycle: a -> b -> a (a -> b: A -> B; b -> a: B ->
   * A)}.
   */
  String describe(List<String> cycle) {
    StringBuilder b =
        new StringBuilder("Package cycle: ").append(String.join(" -> ", cycle)).append(" (");
    for (int i = 0; i + 1 < cycle.size(); i++) {
      b.append(i == 0 ? "" : "; ")
          .append(cycle.get(i))
          .append(" -> ")
          .append(cycle.get(i + 1))
          .append(": ")
          .append(via(cycle.get(i), cycle.get(i + 1)));
    }
    return b.append(')').toString();
  }

  /**
   * Every package edge {@code from -> to} that {@code allowed} refuses, with a class edge for each.
   */
  Set<String> violations(java.util.function.BiPredicate<String, String> allowed) {
    Set<String> v = new TreeSet<>();
    edges.forEach(
        (from, tos) ->
            tos.forEach(
                (to, via) -> {
                  if (!allowed.test(from, to)) {
                    v.add(from + " -> " + to + " (" + via + ")");
                  }
                }));
    return v;
  }

  private static String packageOf(String className) {
    int dot = className.lastIndexOf('.');
    return dot < 0 ? "" : className.substring(0, dot);
  }

  private static String simple(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }
}
