package dev.ondevice.internal.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ondevice.internal.backend.BinaryOp;
import dev.ondevice.internal.backend.RandomKind;
import dev.ondevice.internal.backend.ReduceOp;
import dev.ondevice.internal.backend.UnaryOp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The op codes the Java side passes against the enums of ondevice.cuh that the kernels switch on.
 */
class KernelCodesTest {
  private static final Path HEADER = Path.of("src/main/cuda/ondevice.cuh");

  /** The constants of C enum {@code name}, in order, without their {@code OD_} prefix. */
  private static List<String> cEnum(String name) throws IOException {
    Matcher m =
        Pattern.compile("enum " + name + "\\s*\\{([^}]*)\\}").matcher(Files.readString(HEADER));
    if (!m.find()) {
      throw new AssertionError("enum " + name + " is not in " + HEADER);
    }
    List<String> out = new ArrayList<>();
    for (String c : m.group(1).split(",", -1)) {
      String t = c.trim();
      if (!t.isEmpty()) {
        out.add(t.replaceFirst("^OD_(OP_)?", ""));
      }
    }
    return out;
  }

  private static <E extends Enum<E>> void matches(String cName, E[] values, ToIntFunction<E> code)
      throws IOException {
    List<String> c = cEnum(cName);
    assertEquals(values.length, c.size(), cName + " has one constant per Java constant: " + c);
    for (E v : values) {
      int k = code.applyAsInt(v);
      assertEquals(
          v.name(), c.get(k), v + " is passed as " + k + ", which " + cName + " calls " + c.get(k));
    }
  }

  @Test
  void unaryCodes() throws IOException {
    matches("UnaryCode", UnaryOp.values(), KernelCodes::of);
  }

  @Test
  void binaryCodes() throws IOException {
    matches("BinaryCode", BinaryOp.values(), KernelCodes::of);
  }

  @Test
  void reduceCodes() throws IOException {
    matches("ReduceCode", ReduceOp.values(), KernelCodes::of);
  }

  @Test
  void randomCodes() throws IOException {
    matches("RandomCode", RandomKind.values(), KernelCodes::of);
  }

  @Test
  void errorOpsNameTheOpsInTheirOrder() throws IOException {
    assertEquals(
        Arrays.asList(
            "GATHER",
            "SCATTER_ADD",
            "INDEX_SELECT",
            "INDEX_ADD",
            "BERNOULLI",
            "MAX_POOL2D_BACKWARD"),
        cEnum("ErrorOp"));
    assertEquals(
        Arrays.asList(
            "gather", "scatterAdd", "indexSelect", "indexAdd", "bernoulli", "maxPool2dBackward"),
        Arrays.asList(DeviceErrors.OPS),
        "the Java names of the ops, in the same order");
  }
}
