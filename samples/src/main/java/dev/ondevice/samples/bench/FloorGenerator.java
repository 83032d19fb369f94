package dev.ondevice.samples.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.tools.JavaFileObject;

/**
 * The least any processor that generates the corpus's code can cost: for each corpus model it
 * writes the hand-written equivalent of the generated code through the {@code Filer}, without
 * looking at the model or using JavaPoet. What remains is javac's: the name checks of the Filer
 * and the extra round that compiles generated sources.
 */
@SupportedAnnotationTypes("*")
public final class FloorGenerator extends AbstractProcessor {
  private static final String PREFIX = "Model";

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    for (Element e : round.getRootElements()) {
      String name = e.getSimpleName().toString();
      if (!name.startsWith(PREFIX)) {
        continue;
      }
      int index = Integer.parseInt(name.substring(PREFIX.length()));
      try {
        JavaFileObject file = processingEnv.getFiler().createSourceFile("corpus.OnDevice_" + name, e);
        try (Writer w = file.openWriter()) {
          w.write(Corpus.handWritten(index));
        }
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
    }
    return false;
  }
}
