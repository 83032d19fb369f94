package dev.ondevice.processor;

import com.google.auto.service.AutoService;
import com.sun.source.util.JavacTask;
import com.sun.source.util.Trees;
import dev.ondevice.processor.analysis.AnalysisOptions;
import dev.ondevice.processor.analysis.AnnotationReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.Messager;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.Name;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.WildcardType;
import javax.lang.model.util.ElementFilter;
import javax.tools.Diagnostic;

/**
 * The ondevice annotation processor. For every class of the compilation that extends {@code
 * dev.ondevice.nn.Model} it validates the fields (reporting device bugs in the declaration as
 * compile errors on the field) and, when they are sound, generates {@code OnDevice_<Model>}, the
 * code that visits the model's parameters, buffers and submodules without reflection.
 *
 * <p>It claims no annotation and sees every class ({@code "*"}): a model needs no annotation to be
 * recognised. A class whose supertypes or field types are not generated yet is deferred to the next
 * round. Exceptions never escape {@link #process}: an internal failure is reported as one error on
 * the element being processed, and the compilation goes on.
 */
@AutoService(Processor.class)
@SupportedAnnotationTypes("*")
public final class OnDeviceProcessor extends AbstractProcessor {
  private final Set<String> deferred = new LinkedHashSet<>();
  private final Set<String> handled = new HashSet<>();

  /** Generated class → the model it was generated for, over all rounds. */
  private final Map<String, String> generatedNames = new HashMap<>();

  private KnownTypes known;
  private AnnotationReader annotationReader;
  private Name object;

  /**
   * Where model-declaration errors go: held until their class is analysed (javac), or javac's
   * messager.
   */
  private Messager messager;

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public Set<String> getSupportedOptions() {
    return AnalysisOptions.supportedOptions();
  }

  /**
   * Registers the device analysis with javac, which runs it after each class is attributed, and
   * holds the model-declaration errors until then ({@link HeldErrors}).
   */
  @Override
  public synchronized void init(ProcessingEnvironment env) {
    super.init(env);
    messager = env.getMessager();
    JavacTask task = JavacTasks.of(env);
    if (task != null) {
      HeldErrors held = new HeldErrors(Trees.instance(task), messager);
      task.addTaskListener(held);
      messager = held;
    }
    AnalysisOptions options;
    try {
      options = AnalysisOptions.from(env.getOptions());
    } catch (IllegalArgumentException e) {
      env.getMessager().printMessage(Diagnostic.Kind.ERROR, e.getMessage());
      return;
    }
    if (!options.enabled()) {
      return;
    }
    if (task == null) {
      env.getMessager()
          .printMessage(
              Diagnostic.Kind.NOTE,
              "The ondevice device analysis is off: this compiler"
                  + " is not javac (or hides it), so the processor cannot see method bodies");
      return;
    }
    if (options.automatic() && ErrorProneDetection.runsDeviceChecks(task)) {
      return;
    }
    task.addTaskListener(new AnalysisListener(task, options));
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    try {
      processRound(round);
    } catch (RuntimeException e) {
      processingEnv
          .getMessager()
          .printMessage(
              Diagnostic.Kind.ERROR,
              String.format(
                  Messages.INTERNAL_ERROR,
                  round.processingOver() ? "the last round" : "a round",
                  e));
    }
    return false;
  }

  /**
   * Classifies the round's classes, validates the models and generates their code; failures are
   * reported per class.
   */
  private void processRound(RoundEnvironment round) {
    if (annotationReader == null) {
      annotationReader = new AnnotationReader(processingEnv.getElementUtils());
      object = processingEnv.getElementUtils().getName(Object.class.getName());
    }
    if (known != null) {
      known.newRound();
    }
    ModelValidator validator =
        new ModelValidator(processingEnv, messager, this::known, annotationReader);
    List<TypeElement> candidates = new ArrayList<>();
    for (String name : deferred) {
      TypeElement t = processingEnv.getElementUtils().getTypeElement(name);
      if (t != null) {
        candidates.add(t);
      }
    }
    deferred.clear();
    for (Element root : round.getRootElements()) {
      collectTypes(root, candidates);
    }
    Set<TypeElement> models = new LinkedHashSet<>();
    for (TypeElement type : candidates) {
      if (!handled.contains(type.getQualifiedName().toString())) {
        classify(type, round, models, validator);
      }
    }
    if (models.isEmpty()) {
      return;
    }
    try (SourceRenderer renderer = new SourceRenderer()) {
      for (TypeElement model : models) {
        try {
          ModelDescription description =
              validator.validate(model, t -> models.contains(t) || handled(t));
          if (description != null && isFirstWithItsGeneratedName(description)) {
            renderer.submit(description);
          }
        } catch (RuntimeException e) {
          internalError(model, e);
        }
      }
      renderer.writeAll(new ModelCodeWriter(processingEnv.getFiler()), this::internalError);
    }
  }

  /**
   * Whether no other model of the compilation gets the same generated class (nested {@code
   * Outer.Inner} and top-level {@code Outer_Inner} both give {@code OnDevice_Outer_Inner}); reports
   * the clash on the second.
   */
  private boolean isFirstWithItsGeneratedName(ModelDescription description) {
    String generated = description.generated().canonicalName();
    String first = generatedNames.putIfAbsent(generated, description.modelClass().canonicalName());
    if (first == null) {
      handled.add(generated); // the generated class, a root of the next round, needs no look
      return true;
    }
    messager.printMessage(
        Diagnostic.Kind.ERROR,
        String.format(
            Messages.GENERATED_NAME_CLASH, description.type().getSimpleName(), first, generated),
        description.type());
    return false;
  }

  private boolean handled(TypeElement t) {
    return handled.contains(t.getQualifiedName().toString());
  }

  private void classify(
      TypeElement type, RoundEnvironment round, Set<TypeElement> models, ModelValidator validator) {
    try {
      if (type.getKind() != ElementKind.CLASS) {
        if (type.getKind() != ElementKind.ANNOTATION_TYPE) {
          handled.add(type.getQualifiedName().toString());
          validator.checkNonModel(type);
        }
        return;
      }
      if (hasUnresolvedSupertype(type)) {
        if (!round.processingOver()) {
          deferred.add(type.getQualifiedName().toString());
        }
        return;
      }
      handled.add(type.getQualifiedName().toString());
      if (extendsAClass(type)
          && known().isModel(type.asType())
          && !known().isModelBase(type.asType())) {
        models.add(type);
      } else {
        validator.checkNonModel(type);
      }
    } catch (RuntimeException e) {
      internalError(type, e);
    }
  }

  /** The runtime types, looked up when the first class that could be a model comes along. */
  private KnownTypes known() {
    if (known == null) {
      known = new KnownTypes(processingEnv);
    }
    return known;
  }

  /** Whether a class has a superclass other than {@code Object}, the only way to be a model. */
  private boolean extendsAClass(TypeElement type) {
    TypeMirror s = type.getSuperclass();
    return s.getKind() == TypeKind.DECLARED
        && !((TypeElement) ((DeclaredType) s).asElement()).getQualifiedName().equals(object);
  }

  private static void collectTypes(Element e, List<TypeElement> out) {
    if (e instanceof TypeElement typeElement) {
      out.add(typeElement);
      for (TypeElement nested : ElementFilter.typesIn(e.getEnclosedElements())) {
        collectTypes(nested, out);
      }
    }
  }

  /**
   * Whether a superclass or a field type is not resolved yet (perhaps generated in a later round).
   */
  private boolean hasUnresolvedSupertype(TypeElement type) {
    for (TypeMirror s = type.getSuperclass(); s.getKind() != TypeKind.NONE; ) {
      if (s.getKind() == TypeKind.ERROR) {
        return true;
      }
      Element e = processingEnv.getTypeUtils().asElement(s);
      if (!(e instanceof TypeElement typeElement)) {
        break;
      }
      s = typeElement.getSuperclass();
    }
    for (Element field : ElementFilter.fieldsIn(type.getEnclosedElements())) {
      if (unresolved(field.asType())) {
        return true;
      }
    }
    return false;
  }

  /** Whether a type, its type arguments or its array components are not resolved yet. */
  private static boolean unresolved(TypeMirror t) {
    if (t.getKind() == TypeKind.ERROR) {
      return true;
    }
    if (t.getKind() == TypeKind.ARRAY) {
      return unresolved(((ArrayType) t).getComponentType());
    }
    if (t.getKind() == TypeKind.DECLARED) {
      for (TypeMirror arg : ((DeclaredType) t).getTypeArguments()) {
        if (unresolved(arg)) {
          return true;
        }
      }
    }
    if (t.getKind() == TypeKind.WILDCARD) {
      WildcardType w = (WildcardType) t;
      return (w.getExtendsBound() != null && unresolved(w.getExtendsBound()))
          || (w.getSuperBound() != null && unresolved(w.getSuperBound()));
    }
    return false;
  }

  private void internalError(Element element, Exception e) {
    messager.printMessage(
        Diagnostic.Kind.ERROR, String.format(Messages.INTERNAL_ERROR, element, e), element);
  }
}
