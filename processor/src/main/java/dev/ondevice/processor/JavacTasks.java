package dev.ondevice.processor;

import com.sun.source.util.JavacTask;
import java.lang.reflect.Field;
import javax.annotation.processing.ProcessingEnvironment;

/**
 * The javac task behind a processing environment. Build tools sometimes wrap javac's environment
 * (Gradle's incremental processing does); the wrapped one is found through the wrapper's fields.
 */
final class JavacTasks {
  private JavacTasks() {}

  /** The task, or null when the compiler is not javac. */
  static JavacTask of(ProcessingEnvironment env) {
    ProcessingEnvironment current = env;
    for (int depth = 0; depth < 4 && current != null; depth++) {
      try {
        return JavacTask.instance(current);
      } catch (IllegalArgumentException | NoClassDefFoundError e) {
        current = wrapped(current);
      }
    }
    return null;
  }

  private static ProcessingEnvironment wrapped(ProcessingEnvironment env) {
    for (Class<?> c = env.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (ProcessingEnvironment.class.isAssignableFrom(f.getType())) {
          try {
            f.setAccessible(true);
            return (ProcessingEnvironment) f.get(env);
          } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
          }
        }
      }
    }
    return null;
  }
}
