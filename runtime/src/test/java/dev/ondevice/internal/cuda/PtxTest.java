package dev.ondevice.internal.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.internal.cuda.KernelLibrary.Module;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The PTX the jar ships: present for every module, at the ISA version and target the docs promise,
 * declaring every kernel the backend launches, assembling with ptxas for sm_80 and sm_90 where
 * ptxas is installed, and equal to the committed copies (which builds without nvcc use) where nvcc
 * compiled it from the sources.
 */
class PtxTest {
  private static final String[] TYPES = {"i64", "f32", "f64"};
  private static final String[] ALL_TYPES = {"bool", "i64", "f32", "f64"};

  private static String text(Module m) {
    return KernelLibrary.source(m);
  }

  @ParameterizedTest
  @EnumSource(Module.class)
  void loadsOnDriversFromCuda12AndTargetsSm80(Module m) {
    String ptx = text(m);
    assertTrue(ptx.contains("\n.version 8.0\n"), m + " is PTX ISA 8.0");
    assertTrue(ptx.contains("\n.target sm_80\n"), m + " targets sm_80");
    assertFalse(ptx.contains("used_bytes_mask"), m + " has no hint that needs ISA 8.3");
    assertFalse(
        KernelLibrary.argumentSizes(m).isEmpty(), m + " declares kernels of one struct argument");
  }

  /** Every kernel name the backend composes, by module. */
  private static Map<Module, List<String>> launched() {
    List<String> elementwise = new ArrayList<>(List.of("logical_not"));
    for (String t : ALL_TYPES) {
      elementwise.add("fill_" + t);
      elementwise.add("binary_" + t);
      elementwise.add("binary_scalar_" + t);
      elementwise.add("where_" + t);
      for (String u : ALL_TYPES) {
        elementwise.add("copy_" + t + "_" + u);
      }
    }
    for (String t : TYPES) {
      elementwise.addAll(List.of("unary_" + t, "scaled_add_" + t, "arange_" + t, "random_" + t));
    }
    List<String> reduce = new ArrayList<>(List.of("softmax_f32", "softmax_f64"));
    List<String> index = new ArrayList<>();
    for (String t : TYPES) {
      reduce.addAll(List.of("reduce_rows_" + t, "reduce_blocks_" + t, "reduce_finish_" + t));
      index.addAll(List.of("scatter_add_" + t, "index_add_" + t));
    }
    for (String t : ALL_TYPES) {
      index.addAll(List.of("gather_" + t, "index_select_" + t));
    }
    List<String> window = new ArrayList<>();
    List<String> optim = new ArrayList<>();
    for (String t : new String[] {"f32", "f64"}) {
      elementwise.addAll(List.of("relu_backward_" + t, "bernoulli_" + t));
      window.addAll(
          List.of("unfold2d_" + t, "fold2d_" + t, "max_pool2d_" + t, "max_pool2d_backward_" + t));
      optim.addAll(List.of("sgd_" + t, "adam_" + t));
    }
    List<String> gemm =
        List.of(
            "sgemm128_nn",
            "sgemm128_nt",
            "sgemm128_tn",
            "sgemm128_tt",
            "gemm_f32_64",
            "gemm_f32_32",
            "gemm_f64_64",
            "gemm_f64_32",
            "gemm_i64_32",
            "gemm_splitk_sum_f32",
            "gemm_splitk_sum_f64",
            "gemm_splitk_sum_i64");
    return Map.of(
        Module.ELEMENTWISE,
        elementwise,
        Module.REDUCE,
        reduce,
        Module.INDEX,
        index,
        Module.WINDOW,
        window,
        Module.OPTIM,
        optim,
        Module.GEMM,
        gemm);
  }

  @ParameterizedTest
  @EnumSource(Module.class)
  void declaresEveryKernelTheBackendLaunches(Module m) {
    Map<String, Integer> declared = KernelLibrary.argumentSizes(m);
    for (String name : launched().get(m)) {
      assertTrue(declared.containsKey(name), name + " is in " + m.resource());
    }
    assertEquals(
        launched().get(m).size(),
        declared.size(),
        "no kernel in " + m + " goes unused: " + declared.keySet());
  }

  @ParameterizedTest
  @EnumSource(Module.class)
  void assemblesForSm80AndSm90(Module m) throws IOException, InterruptedException {
    Path ptxas = Path.of(System.getenv().getOrDefault("PTXAS", "/usr/local/cuda/bin/ptxas"));
    Assumptions.assumeTrue(Files.isExecutable(ptxas), "ptxas is not installed at " + ptxas);
    Path file = Files.createTempFile("ondevice-" + m, ".ptx");
    try {
      Files.write(file, text(m).getBytes(StandardCharsets.US_ASCII));
      for (String arch : new String[] {"sm_80", "sm_90"}) {
        Process p =
            new ProcessBuilder(
                    ptxas.toString(), "-arch=" + arch, file.toString(), "-o", "/dev/null")
                .redirectErrorStream(true)
                .start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "ptxas finished");
        assertEquals(0, p.exitValue(), m + " for " + arch + ": " + log);
      }
    } finally {
      Files.delete(file);
    }
  }

  @ParameterizedTest
  @EnumSource(Module.class)
  void theCommittedCopyIsTheBuiltOne(Module m) throws IOException {
    Path committed =
        Path.of("src/main/ptx", m.resource().substring(m.resource().lastIndexOf('/') + 1));
    assertEquals(
        Files.readString(committed, StandardCharsets.US_ASCII),
        text(m),
        committed
            + " is stale: the kernel sources changed; run src/main/cuda/build-ptx.sh target/classes --update");
  }
}
