package dev.ondevice.samples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The samples, the gallery and the corpus are what users read to learn the library: they use the
 * public API only, never the runtime's internal packages ({@code dev.ondevice.internal.*},
 * docs/architecture.md). The benchmarks ({@code samples/benchmarks}, a module of their own, outside
 * the folders this test reads) are the one place allowed to name them, to time a kernel directly.
 */
class PublicApiOnlyTest {
  @Test
  void noSampleNamesAnInternalPackage() throws IOException {
    List<String> offenders;
    try (Stream<Path> files =
        Stream.of("src", "gallery", "corpus")
            .map(Path::of)
            .filter(Files::isDirectory)
            .flatMap(PublicApiOnlyTest::walk)) {
      offenders =
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> !p.endsWith("PublicApiOnlyTest.java"))
              .filter(p -> read(p).contains("dev.ondevice.internal"))
              .map(Path::toString)
              .sorted()
              .collect(Collectors.toList());
    }
    assertTrue(
        offenders.isEmpty(),
        () ->
            "These samples name the runtime's internals; give the public API what"
                + " they need instead: "
                + offenders);
  }

  private static Stream<Path> walk(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files.collect(Collectors.toList()).stream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p, StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
