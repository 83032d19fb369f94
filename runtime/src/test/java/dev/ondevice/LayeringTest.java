package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runtime's layers, checked on its compiled classes with {@code jdeps} (docs/architecture.md
 * draws them): no package cycle, each package naming only the layers below it, and no package
 * outside the backends naming a backend class: backends are found by device type through {@code
 * ServiceLoader}. {@code -Dondevice.layering.classes=PATH} checks another folder or jar (say, an
 * older runtime jar).
 */
class LayeringTest {
  private static final String ANNOTATIONS = "dev.ondevice.annotations";
  private static final String BACKEND = "dev.ondevice.internal.backend";
  private static final String CPU = "dev.ondevice.internal.cpu";
  private static final String CUDA = "dev.ondevice.internal.cuda";
  private static final String CORE = "dev.ondevice";
  private static final String NN = "dev.ondevice.nn";
  private static final String OPTIM = "dev.ondevice.optim";

  /** What each package may name, besides itself: the layers below it. */
  private static final Map<String, Set<String>> MAY_NAME =
      Map.ofEntries(
          Map.entry(ANNOTATIONS, Set.of()),
          Map.entry(BACKEND, Set.of()),
          Map.entry(CPU, Set.of(BACKEND)),
          Map.entry(CUDA, Set.of(BACKEND)),
          Map.entry(CORE, Set.of(BACKEND, ANNOTATIONS)),
          Map.entry("dev.ondevice.internal.core", Set.of(CORE, BACKEND)),
          Map.entry(NN, Set.of(CORE, ANNOTATIONS)),
          Map.entry(OPTIM, Set.of(CORE, ANNOTATIONS)),
          Map.entry("dev.ondevice.data", Set.of(CORE, ANNOTATIONS)),
          Map.entry("dev.ondevice.train", Set.of(CORE, ANNOTATIONS)),
          Map.entry("dev.ondevice.io", Set.of(CORE, NN, OPTIM, ANNOTATIONS)));

  private static PackageGraph runtime;

  @BeforeAll
  static void readClasses() throws URISyntaxException {
    String override = System.getProperty("ondevice.layering.classes");
    Path classes =
        override != null
            ? Path.of(override)
            : Path.of(Tensor.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    runtime = PackageGraph.jdeps(classes, "dev.ondevice.");
    assertTrue(
        runtime.packages().contains(BACKEND) || override != null,
        "jdeps found no backend layer in " + classes);
  }

  @Test
  void noPackageCycle() {
    Optional<List<String>> cycle = runtime.cycle();
    assertTrue(cycle.isEmpty(), () -> runtime.describe(cycle.get()));
  }

  @Test
  void noPackageOutsideTheBackendsNamesABackendClass() {
    Set<String> v = runtime.violations((from, to) -> !(to.equals(CPU) || to.equals(CUDA)));
    assertTrue(
        v.isEmpty(),
        () ->
            "Backends are found by device type (Backends, META-INF/services), never named;"
                + " these packages name one: "
                + v);
  }

  @Test
  void eachPackageNamesOnlyTheLayersBelowIt() {
    Set<String> v =
        runtime.violations(
            (from, to) -> MAY_NAME.containsKey(from) && MAY_NAME.get(from).contains(to));
    assertTrue(
        v.isEmpty(),
        () ->
            "Dependencies the layers (docs/architecture.md) do not allow; a new package"
                + " needs its place in LayeringTest.MAY_NAME and in the picture: "
                + v);
  }

  @Test
  void theFailureNamesTheCycleAndAClassEdgeForEachStep() {
    PackageGraph g = new PackageGraph();
    g.add("p.a.Tensor", "p.b.Registry");
    g.add("p.b.Registry", "p.c.CudaBackend");
    g.add("p.c.CudaBackend", "p.a.Device");
    g.add("p.c.CudaBackend", "p.b.Strided");
    g.add("p.d.Layer", "p.a.Tensor");
    Optional<List<String>> cycle = g.cycle();
    assertTrue(cycle.isPresent());
    assertEquals(
        "Package cycle: p.a -> p.b -> p.c -> p.a (p.a -> p.b: Tensor -> Registry;"
            + " p.b -> p.c: Registry -> CudaBackend; p.c -> p.a: CudaBackend -> Device)",
        g.describe(cycle.get()));
    assertEquals(
        Set.of("p.b -> p.c (Registry -> CudaBackend)"),
        g.violations((from, to) -> !to.equals("p.c")));
  }

  @Test
  void aLayeredGraphHasNoCycle() {
    PackageGraph g = new PackageGraph();
    g.add("p.core.Tensor", "p.backend.Backend");
    g.add("p.cuda.CudaBackend", "p.backend.Backend");
    g.add("p.nn.Linear", "p.core.Tensor");
    assertEquals(Optional.empty(), g.cycle());
  }
}
