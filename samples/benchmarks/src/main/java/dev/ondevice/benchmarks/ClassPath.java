package dev.ondevice.benchmarks;

import java.io.File;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The class path this program runs with, for child javac processes: Maven's exec:java loader or
 * {@code java.class.path}.
 */
final class ClassPath {
  private ClassPath() {}

  static String current() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader instanceof URLClassLoader urls) {
      List<String> entries = new ArrayList<>();
      for (URL url : urls.getURLs()) {
        try {
          entries.add(Paths.get(url.toURI()).toString());
        } catch (URISyntaxException e) {
          throw new IllegalStateException("Unusable class path entry " + url, e);
        }
      }
      if (!entries.isEmpty()) {
        return String.join(File.pathSeparator, entries);
      }
    }
    return System.getProperty("java.class.path");
  }
}
