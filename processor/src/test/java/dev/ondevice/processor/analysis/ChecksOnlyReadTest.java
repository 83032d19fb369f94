package dev.ondevice.processor.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layering of the analysis, read from the compiled checks with the JDK's {@code javap}: a check
 * reads facts and reports, and never changes the interpreter's state. Each check class, and the
 * helpers only checks use, may write only its own fields, may call only the reading methods of
 * {@link AnalysisContext}, and may not touch the interpreter, its environment or its rules.
 */
class ChecksOnlyReadTest {
  /** Classes that only checks use: their code runs while reporting. */
  private static final List<String> CHECK_HELPERS =
      List.of("DeviceCheck", "DeviceTexts", "DiscardedResults", "RejectedArguments");

  /** What a check may ask the context: its reads, and {@code report}. */
  private static final Set<String> CONTEXT_READS =
      Set.of(
          "computedOnTheHost",
          "constructedAt",
          "containers",
          "lineOf",
          "pathOf",
          "placeOf",
          "report",
          "semantics",
          "shortText",
          "suppressedAt",
          "text",
          "trees",
          "types",
          "unit");

  /** The interpreter's state and rules, which no check may name. */
  private static final Set<String> INTERPRETER_ONLY =
      Set.of("Env", "DeviceOps", "CallResults", "CallSites", "Checks");

  private static final Pattern REFERENCE =
      Pattern.compile(
          "(invoke\\w+|putfield|putstatic|getfield|getstatic) +#\\d+ +// (?:InterfaceMethod|Method|Field) "
              + "dev/ondevice/processor/analysis/([A-Za-z$]+)\\.([A-Za-z<>$]+)");

  @Test
  void checksWriteOnlyTheirOwnFieldsAndCallOnlyReads() throws Exception {
    List<String> violations = new ArrayList<>();
    List<String> classes = checkClasses();
    assertTrue(classes.size() >= 12, "check classes found: " + classes);
    for (String name : classes) {
      Matcher m = REFERENCE.matcher(javap(name));
      while (m.find()) {
        String op = m.group(1);
        String owner = m.group(2);
        String member = m.group(3);
        String where = name + ": " + op + " " + owner + "." + member;
        if ((op.startsWith("put") && !owner.startsWith(name.replaceFirst("\\$.*", "")))
            || (owner.equals("AnalysisContext")
                && op.startsWith("invoke")
                && !CONTEXT_READS.contains(member))
            || (owner.equals("MethodInterpreter") && !member.equals("skipParens"))
            || INTERPRETER_ONLY.contains(owner.replaceFirst("\\$.*", ""))) {
          violations.add(where);
        }
      }
    }
    assertEquals(List.of(), violations, "checks that change what the interpreter knows");
  }

  @Test
  void everyCheckOfTheInterpreterIsAClassOfItsOwn() throws Exception {
    Set<String> expected = new TreeSet<>();
    for (CheckId id : CheckId.values()) {
      if (id != CheckId.OPTIMIZER_STATE_LEFT_BEHIND
          && id != CheckId.LOCAL_MODEL_CLASS
          && id != CheckId.ANALYSIS_FAILURE) {
        expected.add(id.id() + "Check");
      }
    }
    Set<String> found = new TreeSet<>(checkClasses());
    found.removeIf(c -> !c.endsWith("Check") || c.equals("DeviceCheck"));
    assertEquals(expected, found);
  }

  private static List<String> checkClasses() throws IOException, URISyntaxException {
    Path dir = classesDirectory().resolve("dev/ondevice/processor/analysis");
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files
          .map(p -> p.getFileName().toString())
          .filter(f -> f.endsWith(".class"))
          .map(f -> f.substring(0, f.length() - ".class".length()))
          .filter(
              c ->
                  c.replaceFirst("\\$.*", "").endsWith("Check")
                      || CHECK_HELPERS.contains(c.replaceFirst("\\$.*", "")))
          .sorted()
          .forEach(out::add);
    }
    return out;
  }

  private static Path classesDirectory() throws URISyntaxException {
    return Path.of(DeviceCheck.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  private static String javap(String simpleName) throws Exception {
    ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow();
    StringWriter out = new StringWriter();
    int rc =
        javap.run(
            new PrintWriter(out),
            new PrintWriter(out),
            "-c",
            "-p",
            "-cp",
            classesDirectory().toString(),
            "dev.ondevice.processor.analysis." + simpleName);
    assertEquals(0, rc, out.toString());
    return out.toString();
  }
}
