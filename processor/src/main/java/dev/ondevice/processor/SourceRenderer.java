package dev.ondevice.processor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import javax.lang.model.element.TypeElement;

/**
 * Renders the generated sources of a round on a worker thread while javac's thread validates the
 * models and writes the sources already rendered, so that JavaPoet's work overlaps javac's (the
 * Filer's checks of each new file and the writes) instead of adding to it. Sources are written in
 * the order the models were submitted: the output does not depend on the threads' timing. One
 * instance per round; {@link #close} stops the worker.
 */
final class SourceRenderer implements AutoCloseable {
  private final List<ModelDescription> models = new ArrayList<>();
  private final List<Future<String>> sources = new ArrayList<>();
  private ExecutorService worker;

  /** Starts rendering the code of {@code model}. */
  void submit(ModelDescription model) {
    if (worker == null) {
      worker =
          Executors.newSingleThreadExecutor(
              task -> {
                Thread t = new Thread(task, "ondevice-codegen");
                t.setDaemon(true);
                return t;
              });
    }
    sources.add(worker.submit(() -> ModelCodeWriter.render(model)));
    models.add(model);
  }

  /**
   * Writes each source with {@code writer}, in submission order, as soon as it is rendered; a model
   * whose rendering or writing fails goes to {@code failed} with the exception, and the others are
   * still written.
   */
  void writeAll(ModelCodeWriter writer, BiConsumer<TypeElement, Exception> failed) {
    for (int i = 0; i < models.size(); i++) {
      ModelDescription model = models.get(i);
      try {
        writer.write(model, sources.get(i).get());
      } catch (ExecutionException e) {
        failed.accept(model.type(), e.getCause() instanceof Exception cause ? cause : e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failed.accept(model.type(), e);
      } catch (Exception e) {
        failed.accept(model.type(), e);
      }
    }
    models.clear();
    sources.clear();
  }

  @Override
  public void close() {
    if (worker != null) {
      worker.shutdownNow();
    }
  }
}
