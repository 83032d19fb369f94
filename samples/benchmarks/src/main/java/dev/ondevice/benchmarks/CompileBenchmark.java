package dev.ondevice.benchmarks;

import dev.ondevice.processor.analysis.CheckId;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compile-time cost of the processor: a corpus of model classes compiled by fresh javac processes,
 * in several configurations interleaved round by round, reported as medians and ratios.
 *
 * <ul>
 *   <li>{@code plain}: javac without processing ({@code -proc:none}), with hand-written equivalents
 *       of the generated code;
 *   <li>{@code noop}: the same sources with a processor that does nothing;
 *   <li>{@code floor}: the models alone with {@link FloorGenerator}, which writes the same code
 *       through the Filer and nothing else: the cost javac puts on any generating processor;
 *   <li>{@code codegen}: the models alone with the ondevice processor, which generates the code
 *       (its compilation included), with the device analysis off ({@code -Aondevice.analysis=off});
 *   <li>{@code ondevice}: the same with the device analysis on, every check enabled.
 * </ul>
 *
 * <p>With the suite {@code analysis}, a corpus of training and evaluation code without model
 * classes, where the processor generates nothing and only analyses: {@code plain}, {@code noop},
 * {@code off} (the ondevice processor with {@code -Aondevice.analysis=off}) and {@code ondevice}.
 *
 * <p>Each ratio is the median over the rounds of that round's ratio (runs moments apart share the
 * machine's load), followed by the smallest and largest of those per-round ratios. The rounds run
 * the configurations in the order above and in the reverse order by turns, so that neither a trend
 * in the machine's load during a round nor the position of a run in it (say, always after the
 * heaviest) favours one configuration.
 *
 * <p>With the suite {@code layout}, what the layout of generated code costs javac, apart from any
 * processor's own work: {@code plain} as above, {@code plain-one} (the models with the same
 * hand-written code in one file, as nested classes), {@code noop}, {@code floor} (one generated
 * file per model) and {@code floor-one} ({@link FloorGenerator} writing one file for all the
 * models).
 *
 * <p>With the suite {@code errorprone}, the same models under Error Prone, which must be on the
 * class path (the benchmarks' test class path: {@code -Dexec.classpathScope=test}):
 *
 * <ul>
 *   <li>{@code ep-off}: Error Prone with every check disabled ({@code -XepDisableAllChecks}), the
 *       processor generating code only;
 *   <li>{@code ep-ondevice}: the same with the device checks enabled, the processor stepping aside.
 * </ul>
 *
 * <p>Arguments: {@code [classes] [rounds] [processor|analysis|layout|errorprone] [jvm options]},
 * default 500, 5 and processor; the optional fourth, a space-separated list such as {@code
 * -XX:TieredStopAtLevel=1}, is given to the JVM of every javac run (as {@code -J} options), the
 * same for all configurations.
 */
public final class CompileBenchmark {
  private static final String PROCESSOR = "dev.ondevice.processor.OnDeviceProcessor";
  private static final List<String> JAVAC_PACKAGES =
      List.of(
          "api", "code", "comp", "file", "main", "model", "parser", "processing", "tree", "util");

  private CompileBenchmark() {}

  /** Runs the benchmark and prints the table. */
  public static void main(String[] args) throws Exception {
    int classes = args.length > 0 ? Integer.parseInt(args[0]) : 500;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    String suite = args.length > 2 ? args[2] : "processor";
    List<String> jvmOptions = new ArrayList<>();
    if (args.length > 3 && !args[3].isBlank()) {
      for (String option : args[3].trim().split("\\s+", -1)) {
        if (!option.startsWith("-")) {
          throw new IllegalArgumentException(
              "JVM option " + option + " must start with '-', as -XX:TieredStopAtLevel=1");
        }
        jvmOptions.add("-J" + option);
      }
    }
    Path dir = Files.createTempDirectory("ondevice-compile-bench");
    List<Path> models = Corpus.writeModels(dir.resolve("src"), classes);
    List<Path> handWritten = Corpus.writeHandWrittenCode(dir.resolve("src"), classes);
    String classpath = ClassPath.current();
    String javac = Paths.get(System.getProperty("java.home"), "bin", "javac").toString();

    Map<String, List<String>> configs =
        switch (suite) {
          case "processor" -> processorConfigs(javac, classpath, dir, models, handWritten);
          case "analysis" ->
              analysisConfigs(
                  javac, classpath, dir, Corpus.writeTrainingCode(dir.resolve("src"), classes));
          case "layout" ->
              layoutConfigs(
                  javac,
                  classpath,
                  dir,
                  models,
                  handWritten,
                  Corpus.writeHandWrittenCodeInOneFile(dir.resolve("one"), classes));
          case "errorprone" -> errorProneConfigs(javac, classpath, dir, models);
          default ->
              throw new IllegalArgumentException(
                  "suite " + suite + " must be processor, analysis, layout or errorprone");
        };

    Map<String, double[]> seconds = new LinkedHashMap<>();
    configs.keySet().forEach(k -> seconds.put(k, new double[rounds]));
    configs.values().forEach(command -> command.addAll(1, jvmOptions));
    for (String name : configs.keySet()) {
      run(configs.get(name), dir);
    }
    List<String> order = new ArrayList<>(configs.keySet());
    for (int r = 0; r < rounds; r++) {
      for (String name : order) {
        seconds.get(name)[r] = run(configs.get(name), dir);
      }
      Collections.reverse(order);
    }
    System.out.printf(
        "suite %s: %d classes, %d fresh javac runs per configuration (interleaved, the order reversed every"
            + " other round), JDK %s%s;"
            + " ratios are medians of the per-round ratios (their range in parentheses)%n",
        suite,
        classes,
        rounds,
        System.getProperty("java.version"),
        jvmOptions.isEmpty() ? "" : ", javac JVM options " + jvmOptions);
    List<String> baselines = new ArrayList<>(configs.keySet());
    baselines.remove(baselines.size() - 1);
    for (Map.Entry<String, double[]> e : seconds.entrySet()) {
      double m = median(e.getValue());
      StringBuilder ratios = new StringBuilder();
      for (String b : baselines) {
        double[] perRound = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          perRound[r] = e.getValue()[r] / seconds.get(b)[r];
        }
        double[] sorted = perRound.clone();
        Arrays.sort(sorted);
        ratios.append(
            String.format(
                "   x %s %.3f (%.2f-%.2f)", b, median(perRound), sorted[0], sorted[rounds - 1]));
      }
      System.out.printf(
          "%-11s median %6.2f s%s   runs %s%n",
          e.getKey(),
          m,
          ratios,
          Arrays.toString(
              Arrays.stream(e.getValue()).map(v -> Math.round(v * 100) / 100.0).toArray()));
    }
  }

  private static Map<String, List<String>> processorConfigs(
      String javac, String classpath, Path dir, List<Path> models, List<Path> handWritten)
      throws IOException {
    List<Path> withCode = new ArrayList<>(models);
    withCode.addAll(handWritten);
    Map<String, List<String>> configs = new LinkedHashMap<>();
    configs.put("plain", command(javac, classpath, dir, "plain", withCode, "-proc:none"));
    configs.put(
        "noop",
        command(
            javac,
            classpath,
            dir,
            "noop",
            withCode,
            "-processorpath",
            classpath,
            "-processor",
            NoopProcessor.class.getName()));
    configs.put(
        "floor",
        command(
            javac,
            classpath,
            dir,
            "floor",
            models,
            "-processorpath",
            classpath,
            "-processor",
            FloorGenerator.class.getName()));
    configs.put(
        "codegen",
        command(
            javac,
            classpath,
            dir,
            "codegen",
            models,
            "-processorpath",
            classpath,
            "-processor",
            PROCESSOR,
            "-Aondevice.analysis=off"));
    configs.put(
        "ondevice",
        command(
            javac,
            classpath,
            dir,
            "ondevice",
            models,
            "-processorpath",
            classpath,
            "-processor",
            PROCESSOR));
    return configs;
  }

  private static Map<String, List<String>> layoutConfigs(
      String javac,
      String classpath,
      Path dir,
      List<Path> models,
      List<Path> handWritten,
      Path oneFile)
      throws IOException {
    List<Path> withCode = new ArrayList<>(models);
    withCode.addAll(handWritten);
    List<Path> withOneFile = new ArrayList<>(models);
    withOneFile.add(oneFile);
    Map<String, List<String>> configs = new LinkedHashMap<>();
    configs.put("plain", command(javac, classpath, dir, "plain", withCode, "-proc:none"));
    configs.put(
        "plain-one", command(javac, classpath, dir, "plain-one", withOneFile, "-proc:none"));
    configs.put(
        "noop",
        command(
            javac,
            classpath,
            dir,
            "noop",
            withCode,
            "-processorpath",
            classpath,
            "-processor",
            NoopProcessor.class.getName()));
    configs.put(
        "floor",
        command(
            javac,
            classpath,
            dir,
            "floor",
            models,
            "-processorpath",
            classpath,
            "-processor",
            FloorGenerator.class.getName()));
    configs.put(
        "floor-one",
        command(
            javac,
            classpath,
            dir,
            "floor-one",
            models,
            "-processorpath",
            classpath,
            "-processor",
            FloorGenerator.class.getName(),
            "-A" + FloorGenerator.ONE_FILE));
    return configs;
  }

  private static Map<String, List<String>> analysisConfigs(
      String javac, String classpath, Path dir, List<Path> training) throws IOException {
    Map<String, List<String>> configs = new LinkedHashMap<>();
    configs.put("plain", command(javac, classpath, dir, "plain", training, "-proc:none"));
    configs.put(
        "noop",
        command(
            javac,
            classpath,
            dir,
            "noop",
            training,
            "-processorpath",
            classpath,
            "-processor",
            NoopProcessor.class.getName()));
    configs.put(
        "off",
        command(
            javac,
            classpath,
            dir,
            "off",
            training,
            "-processorpath",
            classpath,
            "-processor",
            PROCESSOR,
            "-Aondevice.analysis=off"));
    configs.put(
        "ondevice",
        command(
            javac,
            classpath,
            dir,
            "ondevice",
            training,
            "-processorpath",
            classpath,
            "-processor",
            PROCESSOR));
    return configs;
  }

  private static Map<String, List<String>> errorProneConfigs(
      String javac, String classpath, Path dir, List<Path> models) throws IOException {
    try {
      Class.forName("com.google.errorprone.ErrorProneJavacPlugin");
      Class.forName("dev.ondevice.errorprone.DeviceBugChecker");
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "Error Prone and the device checks are not on the class path: run with"
              + " -Dexec.classpathScope=test",
          e);
    }
    StringBuilder deviceChecks = new StringBuilder();
    for (CheckId c : CheckId.values()) {
      if (c != CheckId.ANALYSIS_FAILURE) {
        deviceChecks.append(" -Xep:").append(c.id());
      }
    }
    Map<String, List<String>> configs = new LinkedHashMap<>();
    configs.put(
        "ep-off",
        errorProneCommand(javac, classpath, dir, "ep-off", models, "", "-Aondevice.analysis=off"));
    configs.put(
        "ep-ondevice",
        errorProneCommand(javac, classpath, dir, "ep-ondevice", models, deviceChecks.toString()));
    return configs;
  }

  private static List<String> errorProneCommand(
      String javac,
      String classpath,
      Path dir,
      String name,
      List<Path> sources,
      String checks,
      String... options)
      throws IOException {
    List<String> args = new ArrayList<>();
    for (String pkg : JAVAC_PACKAGES) {
      args.add("-J--add-exports=jdk.compiler/com.sun.tools.javac." + pkg + "=ALL-UNNAMED");
    }
    args.add("-J--add-opens=jdk.compiler/com.sun.tools.javac.code=ALL-UNNAMED");
    args.add("-J--add-opens=jdk.compiler/com.sun.tools.javac.comp=ALL-UNNAMED");
    args.addAll(
        List.of(
            "-XDcompilePolicy=simple",
            "--should-stop=ifError=FLOW",
            "-Xplugin:ErrorProne -XepDisableAllChecks" + checks,
            "-processorpath",
            classpath,
            "-processor",
            PROCESSOR));
    args.addAll(List.of(options));
    return command(javac, classpath, dir, name, sources, args.toArray(new String[0]));
  }

  private static List<String> command(
      String javac, String classpath, Path dir, String name, List<Path> sources, String... options)
      throws IOException {
    Path out = Files.createDirectories(dir.resolve("out-" + name));
    Path generated = Files.createDirectories(dir.resolve("gen-" + name));
    Path list = dir.resolve("sources-" + name + ".txt");
    List<String> lines = new ArrayList<>();
    for (Path p : sources) {
      lines.add(p.toString());
    }
    Files.write(list, lines);
    List<String> cmd =
        new ArrayList<>(
            List.of(
                javac,
                "--release",
                "17",
                "-nowarn",
                "-cp",
                classpath,
                "-d",
                out.toString(),
                "-s",
                generated.toString()));
    cmd.addAll(List.of(options));
    cmd.add("@" + list);
    return cmd;
  }

  private static double run(List<String> command, Path dir)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(new File(dir.toFile(), "javac.log"))
            .start();
    int status = p.waitFor();
    double s = (System.nanoTime() - start) / 1e9;
    if (status != 0) {
      throw new IllegalStateException(
          "javac failed (" + status + "): " + Files.readString(dir.resolve("javac.log")));
    }
    return s;
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
