package dev.ondevice.samples.gallery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Device;
import dev.ondevice.processor.analysis.CheckId;
import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gallery's bugs fixed by the checks' own suggested fixes, applied the way a user applies them:
 * Error Prone with {@code -XepPatchChecks} and {@code -XepPatchLocation:IN_PLACE}. The patched
 * programs match {@code gallery/fixed} line for line, compile with the processor without a single
 * device error, and run on a (emulated) CUDA device, where the programs as written fail.
 *
 * <p>Run with {@code -Dgallery.updateFixed=true} to rewrite {@code gallery/fixed} after a change to
 * a fix; review the diff before committing it.
 */
class PatchedGalleryTest {
  private static final Path BUGS = Path.of("gallery", "bugs");
  private static final Path FIXED = Path.of("gallery", "fixed");
  private static final Path DRIVER =
      Path.of(
          "src", "test", "resources", "gallery-driver", "gallery", "bugs", "GalleryDriver.java");

  /**
   * The bug files whose errors are model-declaration errors, which have no automatic fix: the
   * processor's own, and model classes declared inside methods.
   */
  private static final Set<String> DECLARATION_ERRORS =
      Set.of("UnregisteredTensorFields.java", "LocalModels.java");

  private static final Pattern MARKER =
      Pattern.compile("\\s*// expect(-error)?:.*$", Pattern.MULTILINE);
  private static final Device CUDA = Device.parse("cuda:0");

  @TempDir static Path work;
  private static Path patched;

  /**
   * The gallery's bug files, markers removed, patched in place by Error Prone once for all tests.
   */
  @BeforeAll
  static void patchTheGallery() throws IOException {
    patched = work.resolve("patched");
    List<Path> sources = copyBugs(patched);
    String checks =
        Arrays.stream(CheckId.values())
            .filter(c -> c != CheckId.ANALYSIS_FAILURE)
            .map(CheckId::id)
            .collect(Collectors.joining(","));
    Compiled c =
        compile(
            sources,
            work.resolve("patch-classes"),
            "-XDcompilePolicy=simple",
            "--should-stop=ifError=FLOW",
            "-Xplugin:ErrorProne -XepDisableAllChecks -XepPatchChecks:"
                + checks
                + " -XepPatchLocation:IN_PLACE");
    assertTrue(c.errors().isEmpty(), "patching must compile: " + c.errors());
  }

  @Test
  void patchedProgramsMatchTheFixedGallery() throws IOException {
    boolean update = Boolean.getBoolean("gallery.updateFixed");
    List<String> differing = new ArrayList<>();
    for (Path p : javaFiles(patched)) {
      Path golden = FIXED.resolve(p.getFileName());
      String text = Files.readString(p);
      if (update) {
        Files.createDirectories(FIXED);
        Files.writeString(golden, text);
      } else if (!Files.exists(golden) || !Files.readString(golden).equals(text)) {
        differing.add(p.getFileName() + "\n" + text);
      }
    }
    assertEquals(
        List.of(),
        differing,
        "patched files differ from "
            + FIXED
            + " (rerun with -Dgallery.updateFixed=true"
            + " and review the diff)");
  }

  @Test
  void patchedProgramsHaveNoDeviceErrorsLeft() throws IOException {
    // Every class is analysed even after the first error, whatever the JDK's default stop policy.
    Compiled c =
        compile(
            javaFiles(patched),
            work.resolve("check-classes"),
            "-Aondevice.analysis=on",
            "--should-stop=ifError=FLOW");
    List<String> errors = c.errors().stream().map(e -> e.substring(0, e.indexOf(']') + 1)).toList();
    assertEquals(
        List.of(
            "DiscardedMoves.java:30 [DiscardedMove]",
            "StaticConstants.java:20 [StaticTensorConstant]",
            "StaticConstants.java:20 [StaticTensorConstant]",
            "StaticConstants.java:30 [StaticTensorConstant]"),
        errors,
        "only the findings without an automatic fix are left (a helper that must return the tensor it moves, static"
            + " constants that must become buffers): "
            + c.errors());
    assertEquals(
        List.of(
            "HostSyncs.java:39 [HostSyncInLoop]",
            "HostSyncs.java:49 [HostSyncInLoop]",
            "HostSyncs.java:62 [HostSyncInLoop]"),
        c.warnings(),
        "only the host syncs without an automatic fix are left (printing, counting on the host, a step that returns"
            + " a number)");
  }

  @Test
  void patchedProgramsRunOnTheDeviceWhereTheOriginalsFail() throws Exception {
    List<String> original =
        runDriver(copyBugs(work.resolve("original")), work.resolve("original-classes"));
    TreeSet<String> failed =
        original.stream()
            .map(f -> f.substring(0, f.indexOf(':')))
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(
        new TreeSet<>(
            List.of(
                "DefaultDeviceInModel.Masked",
                "DefaultDeviceInModel.Noisy",
                "DefaultDeviceInModel.Positional",
                "DefaultDeviceInModel.Recurrent",
                "DefaultDeviceInModel.DefaultHidden",
                "DiscardedMoves.train",
                "MixedDevices.addNoise",
                "MixedDevices.crossGpu",
                "MixedDevices.features",
                "ModelNotMoved.built",
                "ModelNotMoved.newHead",
                "ModelNotMoved.probe",
                "ModelNotMoved.train",
                "TargetsNotMoved.accuracy",
                "TargetsNotMoved.train",
                "TargetsNotMoved.trainWithFloatTargets",
                "DiscardedOps.Block",
                "DiscardedOps.normalize")),
        failed,
        String.join("\n", original));

    List<String> fixed = runDriver(javaFiles(patched), work.resolve("fixed-classes"));
    assertEquals(List.of(), fixed, "the patched programs must run on " + CUDA);
  }

  /**
   * Compiles the programs with the driver (analysis off, as the originals have errors) and runs it.
   */
  private static List<String> runDriver(List<Path> programs, Path classes) throws Exception {
    List<Path> sources = new ArrayList<>(programs);
    sources.add(DRIVER);
    Compiled c = compile(sources, classes, "-Aondevice.analysis=off");
    assertEquals(List.of(), c.errors());
    try (URLClassLoader loader =
        new URLClassLoader(
            new URL[] {classes.toUri().toURL()}, PatchedGalleryTest.class.getClassLoader())) {
      Method run = loader.loadClass("gallery.bugs.GalleryDriver").getMethod("run", Device.class);
      @SuppressWarnings("unchecked")
      List<String> failures = (List<String>) run.invoke(null, CUDA);
      return failures;
    }
  }

  private static List<Path> copyBugs(Path to) throws IOException {
    Path dir = to.resolve("gallery").resolve("bugs");
    Files.createDirectories(dir);
    List<Path> out = new ArrayList<>();
    for (Path p : javaFiles(BUGS)) {
      if (DECLARATION_ERRORS.contains(p.getFileName().toString())) {
        continue;
      }
      Path copy = dir.resolve(p.getFileName());
      Files.writeString(copy, MARKER.matcher(Files.readString(p)).replaceAll(""));
      out.add(copy);
    }
    return out;
  }

  private static List<Path> javaFiles(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }

  /** Errors and warnings of a compilation, as "File.java:line message". */
  private record Compiled(List<String> errors, List<String> warnings) {}

  private static Compiled compile(List<Path> sources, Path classes, String... options)
      throws IOException {
    Files.createDirectories(classes);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    String classPath = System.getProperty("java.class.path");
    List<String> args =
        new ArrayList<>(
            List.of(
                "-d",
                classes.toString(),
                "-classpath",
                classPath,
                "-processorpath",
                classPath,
                "-encoding",
                "UTF-8"));
    args.addAll(List.of(options));
    StringWriter out = new StringWriter();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromPaths(sources);
      javac.getTask(out, files, diagnostics, args, null, units).call();
    }
    List<String> errors = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      String where =
          d.getSource() == null
              ? ""
              : new File(d.getSource().getName()).getName() + ":" + d.getLineNumber();
      String message = d.getMessage(Locale.ROOT);
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        errors.add(where + " " + message);
      } else if (d.getKind() == Diagnostic.Kind.WARNING
          || d.getKind() == Diagnostic.Kind.MANDATORY_WARNING) {
        warnings.add(where + " " + message.substring(0, Math.max(0, message.indexOf(']') + 1)));
      }
    }
    out.toString()
        .lines()
        .filter(line -> !line.startsWith("Refactoring changes were successfully applied"))
        .forEach(line -> errors.add("javac output: " + line));
    return new Compiled(errors, warnings);
  }
}
