package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.Sources.compile;
import static dev.ondevice.processor.Sources.resource;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.TypeSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * The generated code of representative models, compared with golden files; and the processor's
 * round handling.
 */
class ModelCodeGenerationTest {
  private static final String IMPORTS =
      """
      package test;
      import dev.ondevice.Parameter;
      import dev.ondevice.Tensor;
      import dev.ondevice.nn.Model;
      import dev.ondevice.annotations.Buffer;
      import dev.ondevice.annotations.OnDevice;
      import java.util.List;
      import java.util.Map;
      """;

  private static final JavaFileObject HEAD =
      source("Head", IMPORTS + "class Head extends Model {\n  Parameter w;\n}\n");

  private static void assertGenerated(Compilation c, String generated, String golden) {
    assertThat(c).succeededWithoutWarnings();
    assertThat(c)
        .generatedSourceFile(generated)
        .contentsAsUtf8String()
        .isEqualTo(resource("golden/" + golden));
  }

  @Test
  void everyKindOfState() {
    JavaFileObject net =
        source(
            "Net",
            IMPORTS
                + """
        class Net extends Model {
          final Parameter weight = null;
          @Buffer Tensor runningMean;
          @Buffer(persistent = false) Tensor scratch;
          @OnDevice Tensor mask;
          @Buffer @OnDevice("cpu") Tensor vocabulary;
          @OnDevice("cpu") private Tensor lookupTable;
          final Head head = new Head();
          final List<Head> blocks = List.of();
          List<Parameter> extra;
          Map<String, Head> heads;
          int steps;
          String name;
          static final int SIZE = 3;
        }\
        """);
    assertGenerated(compile(net, HEAD), "test.OnDevice_Net", "OnDevice_Net.java");
  }

  @Test
  void subclassVisitsItsSuperclassFirst() {
    JavaFileObject base =
        source("Base", IMPORTS + "abstract class Base extends Model {\n  Parameter w;\n}\n");
    JavaFileObject derived =
        source("Derived", IMPORTS + "class Derived extends Base {\n  @Buffer Tensor b;\n}\n");
    assertGenerated(compile(derived, base), "test.OnDevice_Derived", "OnDevice_Derived.java");
  }

  @Test
  void nestedAndGenericModels() {
    JavaFileObject outer =
        source(
            "Outer",
            IMPORTS
                + """
        class Outer {
          static class Wrapper<M extends Model, P extends Parameter> extends Model {
            M inner;
            P scale;
            List<M> stack;
          }
        }\
        """);
    assertGenerated(compile(outer), "test.OnDevice_Outer_Wrapper", "OnDevice_Outer_Wrapper.java");
  }

  @Test
  void aSubmoduleTypedByAnIntersectionBoundIsVisited() {
    JavaFileObject wrapper =
        source(
            "Wrapper",
            IMPORTS + "class Wrapper<T extends Model & Runnable> extends Model {\n  T inner;\n}\n");
    Compilation c = compile(wrapper);
    assertThat(c).succeededWithoutWarnings();
    assertThat(c)
        .generatedSourceFile("test.OnDevice_Wrapper")
        .contentsAsUtf8String()
        .contains("visitor.submodule(prefix + \"inner\", model.inner);");
  }

  @Test
  void outputIsDeterministic() {
    JavaFileObject net =
        source(
            "Net",
            IMPORTS + "class Net extends Model {\n  Parameter a;\n  Head h = new Head();\n}\n");
    assertThat(compile(HEAD, net))
        .generatedSourceFile("test.OnDevice_Net")
        .contentsAsUtf8String()
        .isEqualTo(contents(compile(net, HEAD)));
  }

  private static String contents(Compilation c) {
    try {
      return c.generatedSourceFile("test.OnDevice_Net")
          .orElseThrow()
          .getCharContent(false)
          .toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void aFailureOutsideAnyClassIsOneErrorAndProcessDoesNotThrow() {
    JavaFileObject net = source("Net", IMPORTS + "class Net extends Model {\n  Parameter a;\n}\n");
    Compilation c =
        Sources.compileWithOptions(
            List.of("-Aondevice.analysis=off"), List.of(net), new BrokenRound());
    assertThat(c).hadErrorCount(1);
    assertThat(c)
        .hadErrorContaining(
            "Internal error in the ondevice processor while processing a round:"
                + " java.lang.IllegalStateException: broken round; the rest of the compilation goes on");
  }

  /** Hands a second ondevice processor a first round that fails outside any class. */
  @SupportedAnnotationTypes("*")
  static final class BrokenRound extends AbstractProcessor {
    private final OnDeviceProcessor inner = new OnDeviceProcessor();
    private boolean done;

    @Override
    public SourceVersion getSupportedSourceVersion() {
      return SourceVersion.latestSupported();
    }

    @Override
    public synchronized void init(ProcessingEnvironment env) {
      super.init(env);
      inner.init(env);
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
      if (done) {
        return false;
      }
      done = true;
      RoundEnvironment broken =
          (RoundEnvironment)
              Proxy.newProxyInstance(
                  RoundEnvironment.class.getClassLoader(),
                  new Class<?>[] {RoundEnvironment.class},
                  (proxy, method, args) -> {
                    if (method.getName().equals("getRootElements")) {
                      throw new IllegalStateException("broken round");
                    }
                    return method.invoke(round, args);
                  });
      inner.process(annotations, broken);
      return false;
    }
  }

  /** Generates, in its first round, the model superclass {@code test.GeneratedBase}. */
  @SupportedAnnotationTypes("*")
  static final class BaseGenerator extends AbstractProcessor {
    private boolean done;

    @Override
    public SourceVersion getSupportedSourceVersion() {
      return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
      if (!done) {
        done = true;
        TypeSpec base =
            TypeSpec.classBuilder("GeneratedBase")
                .superclass(com.palantir.javapoet.ClassName.get("dev.ondevice.nn", "Model"))
                .addModifiers(Modifier.ABSTRACT)
                .addField(com.palantir.javapoet.ClassName.get("dev.ondevice", "Parameter"), "w")
                .build();
        try {
          JavaFile.builder("test", base).build().writeTo(processingEnv.getFiler());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      return false;
    }
  }

  @Test
  void modelWhoseSuperclassIsGeneratedLaterIsDeferredToTheNextRound() {
    JavaFileObject derived =
        source(
            "Derived", IMPORTS + "class Derived extends GeneratedBase {\n  @Buffer Tensor b;\n}\n");
    Compilation c = compile(List.of(derived), new BaseGenerator());
    assertGenerated(c, "test.OnDevice_Derived", "OnDevice_Derived_of_generated.java");
    assertThat(c).generatedSourceFile("test.OnDevice_GeneratedBase");
  }

  @Test
  void aFailureInsideTheProcessorIsOneErrorOnTheElementAndCompilationGoesOn() {
    JavaFileObject net = source("Net", IMPORTS + "class Net extends Model {\n  Parameter a;\n}\n");
    JavaFileObject clash = source("OnDevice_Net", "package test;\nclass OnDevice_Net {}\n");
    JavaFileObject other =
        source("Other", IMPORTS + "class Other extends Model {\n  Parameter b;\n}\n");
    Compilation c = compile(net, clash, other);
    assertThat(c).hadErrorCount(1);
    assertThat(c)
        .hadErrorContaining("Internal error in the ondevice processor while processing test.Net")
        .inFile(net)
        .onLine(9);
  }
}
