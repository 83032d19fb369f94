package dev.ondevice.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Device;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model compiled without the processor fails on its first move, saying how to configure the
 * build.
 */
class MissingProcessorTest {
  @Test
  void firstMoveExplainsHowToPutTheProcessorOnThePath(@TempDir Path dir) throws Exception {
    Path source = dir.resolve("plain/Plain.java");
    Files.createDirectories(source.getParent());
    Files.writeString(
        source,
        """
        package plain;
        public class Plain extends dev.ondevice.nn.Model {
          final dev.ondevice.Parameter w = new dev.ondevice.Parameter(dev.ondevice.Tensor.ones(2));
        }
        """);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int status =
        javac.run(
            null,
            null,
            null,
            List.of(
                    "-proc:none",
                    "-classpath",
                    System.getProperty("java.class.path"),
                    "-d",
                    dir.toString(),
                    source.toString())
                .toArray(new String[0]));
    assertEquals(0, status);
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
      Model plain = (Model) loader.loadClass("plain.Plain").getDeclaredConstructor().newInstance();
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> plain.toDevice(Device.cuda(0)));
      assertTrue(
          e.getMessage().contains("compiled without the ondevice annotation processor"),
          e.getMessage());
      assertTrue(e.getMessage().contains("plain.OnDevice_Plain is missing"), e.getMessage());
      assertTrue(e.getMessage().contains("annotationProcessorPaths"), e.getMessage());
      assertTrue(new File(dir.toFile(), "plain/Plain.class").exists());
      assertEquals(
          "Plain(<no generated code: compiled without the ondevice annotation processor>)",
          plain.toString());
    }
  }
}
