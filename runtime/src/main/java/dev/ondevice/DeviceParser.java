package dev.ondevice;

import java.util.Locale;
import java.util.Set;

/**
 * Parses device strings with PyTorch's grammar, with an error message for every way to get it
 * wrong.
 */
final class DeviceParser {
  private static final String EXPECTED = "expected \"cpu\", \"cuda\" or \"cuda:N\"";

  /** Device types PyTorch knows that this runtime has no backend for. */
  private static final Set<String> KNOWN_ELSEWHERE =
      Set.of(
          "xpu",
          "xla",
          "hip",
          "meta",
          "ipu",
          "hpu",
          "mtia",
          "ve",
          "lazy",
          "vulkan",
          "opengl",
          "opencl",
          "ideep",
          "mkldnn",
          "fpga",
          "maia",
          "privateuseone");

  private DeviceParser() {}

  static Device parse(String spec) {
    if (spec == null) {
      throw new IllegalArgumentException("Device string must not be null; " + EXPECTED);
    }
    if (spec.isEmpty()) {
      throw new IllegalArgumentException("Device string must not be empty; " + EXPECTED);
    }
    int colon = spec.indexOf(':');
    String typeName = colon < 0 ? spec : spec.substring(0, colon);
    DeviceType type = type(typeName, spec);
    if (colon < 0) {
      return Device.of(type, -1);
    }
    int index = index(spec.substring(colon + 1), spec);
    if (type == DeviceType.CPU && index != 0) {
      throw new IllegalArgumentException(
          "Invalid device string '" + spec + "': the CPU device index must be 0, got " + index);
    }
    return Device.of(type, index);
  }

  private static DeviceType type(String name, String spec) {
    switch (name) {
      case "cpu" -> {
        return DeviceType.CPU;
      }
      case "cuda" -> {
        return DeviceType.CUDA;
      }
      case "mps" ->
          throw new IllegalArgumentException(
              "Unsupported device type 'mps' in '"
                  + spec
                  + "': this runtime has no Metal (Apple"
                  + " silicon) backend; use \"cpu\", or Device.cudaIfAvailable() for portable code");
      default -> {
        // Not a type of this runtime: explained below.
      }
    }
    if (KNOWN_ELSEWHERE.contains(name)) {
      throw new IllegalArgumentException(
          "Unsupported device type '"
              + name
              + "' in '"
              + spec
              + "': this runtime has no "
              + name
              + " backend; the device types here are cpu and cuda");
    }
    if (!name.equals(name.toLowerCase(Locale.ROOT))
        && (name.equalsIgnoreCase("cpu") || name.equalsIgnoreCase("cuda"))) {
      throw new IllegalArgumentException(
          "Invalid device string '"
              + spec
              + "': device types are lower case, as in \""
              + name.toLowerCase(Locale.ROOT)
              + "\"");
    }
    throw new IllegalArgumentException(
        "Invalid device string '" + spec + "': unknown device type '" + name + "'; " + EXPECTED);
  }

  private static int index(String digits, String spec) {
    if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException(
          "Invalid device string '"
              + spec
              + "': the device index must be a non-negative integer; "
              + EXPECTED);
    }
    if (digits.length() > 1 && digits.charAt(0) == '0') {
      throw new IllegalArgumentException(
          "Invalid device string '"
              + spec
              + "': the device index must not have leading zeros;"
              + " write \""
              + spec.substring(0, spec.indexOf(':') + 1)
              + digits.replaceFirst("^0+(?=.)", "")
              + "\"");
    }
    if (digits.length() > 5 || Integer.parseInt(digits) > Short.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Invalid device string '" + spec + "': device index " + digits + " is too large");
    }
    return Integer.parseInt(digits);
  }
}
