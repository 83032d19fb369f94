package dev.ondevice.samples.corpus;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/** javac with the processor, on the test's class path, as a user's build runs it. */
final class CorpusCompiler {
  private CorpusCompiler() {}

  /** An error or warning: the file's name, its line and javac's message. */
  record Report(String file, long line, boolean error, String message) {
    @Override
    public String toString() {
      return file + ":" + line + ": " + (error ? "error: " : "warning: ") + message;
    }
  }

  /** The result of one compilation: whether it succeeded, and its errors and warnings. */
  record Result(boolean success, List<Report> reports) {}

  /** Compiles {@code sources} into {@code classes} with the processor and {@code options}. */
  static Result compile(List<Path> sources, Path classes, String... options) throws IOException {
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
                "UTF-8",
                "-proc:full",
                "--should-stop=ifError=FLOW"));
    args.addAll(List.of(options));
    StringWriter out = new StringWriter();
    boolean success;
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      success =
          javac
              .getTask(
                  out, files, diagnostics, args, null, files.getJavaFileObjectsFromPaths(sources))
              .call();
    }
    List<Report> reports = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      boolean error = d.getKind() == Diagnostic.Kind.ERROR;
      if (!error
          && d.getKind() != Diagnostic.Kind.WARNING
          && d.getKind() != Diagnostic.Kind.MANDATORY_WARNING) {
        continue;
      }
      String file =
          d.getSource() == null ? "" : Path.of(d.getSource().getName()).getFileName().toString();
      reports.add(new Report(file, d.getLineNumber(), error, d.getMessage(Locale.ROOT)));
    }
    return new Result(success, reports);
  }
}
