package dev.ondevice.samples.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.source.util.JavacTask;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The processor's tests compile small programs against hand-kept stubs of the runtime ({@code
 * processor/src/test/resources/stubs}); their device annotations are what those tests analyse.
 * Every stub type is compared with the runtime type of its name, as javac reads both: each method
 * and constructor the stub declares must exist in the runtime type (declared or inherited) with the
 * same parameter and return types, static or not alike, and the same annotations of {@code
 * dev.ondevice.annotations}, values included, on it and on each parameter; the types' own device
 * annotations must be the same too.
 */
class RuntimeStubsTest {
  private static final Path STUBS = Path.of("..", "processor", "src", "test", "resources", "stubs");

  /**
   * The stub types that stand for a runtime type of another name: a loader and a loss whose
   * programs need no more than their device behaviour.
   */
  private static final Map<String, String> STAND_INS =
      Map.of(
          "dev.ondevice.Loss", "dev.ondevice.nn.Loss",
          "dev.ondevice.Loader", "dev.ondevice.data.DataLoader",
          "dev.ondevice.Loader.Batch", "dev.ondevice.data.Batch",
          "dev.ondevice.Loader.Batches", "dev.ondevice.data.DataLoader.BatchIterator");

  @Test
  void everyStubMemberHasTheRuntimesSignatureAndDeviceAnnotations() throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    List<String> differences = new ArrayList<>();
    int compared = 0;
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<Path> sources = stubSources();
      DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
      JavacTask stubs = task(javac, files, diagnostics, files.getJavaFileObjectsFromPaths(sources));
      List<TypeElement> stubTypes = new ArrayList<>();
      for (Element e : stubs.analyze()) {
        collectTypes((TypeElement) e, stubTypes);
      }
      assertTrue(
          diagnostics.getDiagnostics().isEmpty(),
          () -> "the stubs do not compile: " + diagnostics.getDiagnostics());
      JavacTask runtime = task(javac, files, null, List.of());
      for (TypeElement stub : stubTypes) {
        compared += compare(stub, stubs, runtime, differences);
      }
    }
    assertTrue(
        compared > 40,
        "only " + compared + " members compared: are the stubs where this test looks?");
    assertEquals(
        "",
        String.join("\n", differences),
        "The processor's stubs differ from the runtime; fix the stub,"
            + " unless the runtime's annotation is wrong:");
  }

  private static List<Path> stubSources() throws IOException {
    assertTrue(Files.isDirectory(STUBS), STUBS.toAbsolutePath() + " is not a folder");
    try (Stream<Path> walk = Files.walk(STUBS)) {
      return walk.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList());
    }
  }

  /**
   * javac on the test's class path (the runtime's classes and the annotations), annotation
   * processing off.
   */
  private static JavacTask task(
      JavaCompiler javac,
      StandardJavaFileManager files,
      DiagnosticCollector<JavaFileObject> diagnostics,
      Iterable<? extends JavaFileObject> sources) {
    List<String> options =
        List.of("-classpath", System.getProperty("java.class.path"), "-proc:none");
    return (JavacTask) javac.getTask(null, files, diagnostics, options, null, sources);
  }

  private static void collectTypes(TypeElement type, List<TypeElement> out) {
    out.add(type);
    for (TypeElement nested : ElementFilter.typesIn(type.getEnclosedElements())) {
      collectTypes(nested, out);
    }
  }

  /** Compares one stub type with its runtime type; returns how many members it compared. */
  private static int compare(
      TypeElement stub, JavacTask stubs, JavacTask runtime, List<String> differences) {
    String stubName = stub.getQualifiedName().toString();
    String realName = STAND_INS.getOrDefault(stubName, stubName);
    Elements stubElements = stubs.getElements();
    Elements realElements = runtime.getElements();
    TypeElement real = realElements.getTypeElement(realName);
    if (real == null) {
      differences.add(stubName + ": the runtime has no type " + realName);
      return 0;
    }
    List<String> stubAnnotations = DeviceAnnotations.of(stub, stubElements);
    List<String> realAnnotations = DeviceAnnotations.of(real, realElements);
    if (!stubAnnotations.equals(realAnnotations)) {
      differences.add(
          stubName
              + ": the stub type has "
              + stubAnnotations
              + ", the runtime's "
              + realName
              + " "
              + realAnnotations);
    }
    UnaryOperator<String> standIns = name -> STAND_INS.getOrDefault(name, name);
    Map<String, MemberSignature> realMembers = new HashMap<>();
    for (ExecutableElement e : executables(real, realElements)) {
      MemberSignature s =
          MemberSignature.of(e, realElements, runtime.getTypes(), UnaryOperator.identity());
      realMembers.putIfAbsent(s.key(), s);
    }
    int compared = 0;
    for (ExecutableElement e : ElementFilter.methodsIn(stub.getEnclosedElements())) {
      compared +=
          compare(
              stubName,
              MemberSignature.of(e, stubElements, stubs.getTypes(), standIns),
              realMembers,
              differences);
    }
    for (ExecutableElement e : ElementFilter.constructorsIn(stub.getEnclosedElements())) {
      if (stubElements.getOrigin(e) == Elements.Origin.EXPLICIT) {
        compared +=
            compare(
                stubName,
                MemberSignature.of(e, stubElements, stubs.getTypes(), standIns),
                realMembers,
                differences);
      }
    }
    return compared;
  }

  private static int compare(
      String stubName,
      MemberSignature stub,
      Map<String, MemberSignature> realMembers,
      List<String> differences) {
    MemberSignature real = realMembers.get(stub.key());
    if (real == null) {
      differences.add(
          stubName + "#" + stub.key() + ": the runtime has no such method or constructor");
      return 0;
    }
    for (String d : stub.differencesFrom(real)) {
      differences.add(stubName + "#" + stub.key() + ": " + d);
    }
    return 1;
  }

  /** The runtime type's constructors and its methods, declared and inherited. */
  private static List<ExecutableElement> executables(TypeElement real, Elements elements) {
    List<ExecutableElement> out =
        new ArrayList<>(ElementFilter.constructorsIn(real.getEnclosedElements()));
    out.addAll(ElementFilter.methodsIn(elements.getAllMembers(real)));
    return out;
  }
}
