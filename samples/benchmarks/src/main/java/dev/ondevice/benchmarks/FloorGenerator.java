package dev.ondevice.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;

/**
 * The least any processor that generates the corpus's code can cost: for each corpus model it
 * writes the hand-written equivalent of the generated code through the {@code Filer}, without
 * looking at the model or using JavaPoet. What remains is javac's: the name checks of the Filer and
 * the extra round that compiles generated sources.
 *
 * <p>With {@code -A}{@value #ONE_FILE}, it writes the code of all the models into one file, {@code
 * corpus.OnDevice_Models} (nested classes, every model an originating element): what one generated
 * file per package instead of one per model would cost.
 */
@SupportedAnnotationTypes("*")
public final class FloorGenerator extends AbstractProcessor {
  /** The option that writes one file for all the models. */
  public static final String ONE_FILE = "floor.oneFile";

  private static final String PREFIX = "Model";

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public Set<String> getSupportedOptions() {
    return Set.of(ONE_FILE);
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    List<Element> models = new ArrayList<>();
    for (Element e : round.getRootElements()) {
      if (e.getSimpleName().toString().startsWith(PREFIX)) {
        models.add(e);
      }
    }
    if (models.isEmpty()) {
      return false;
    }
    if (processingEnv.getOptions().containsKey(ONE_FILE)) {
      write(
          "corpus.OnDevice_Models",
          Corpus.handWrittenInOneFile(models.size()),
          models.toArray(new Element[0]));
    } else {
      for (Element e : models) {
        String name = e.getSimpleName().toString();
        write(
            "corpus.OnDevice_" + name,
            Corpus.handWritten(Integer.parseInt(name.substring(PREFIX.length()))),
            e);
      }
    }
    return false;
  }

  private void write(String name, String text, Element... originatingElements) {
    try {
      try (Writer w =
          processingEnv.getFiler().createSourceFile(name, originatingElements).openWriter()) {
        w.write(text);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
