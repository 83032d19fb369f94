package dev.ondevice.internal.cuda;

import static dev.ondevice.internal.cuda.CudaDriver.check;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUjit_option;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import jcuda.driver.JITOptions;

/**
 * The kernels of one device: the PTX modules shipped in the jar ({@code dev/ondevice/cuda/*.ptx},
 * compiled from {@code runtime/src/main/cuda} at build time), each loaded into the device's context
 * (the driver compiles it for the device, and caches the result) the first time one of its kernels
 * is used. Internal to the runtime.
 */
final class KernelLibrary {
  /** The PTX modules, one per source file. */
  enum Module {
    ELEMENTWISE("elementwise"),
    REDUCE("reduce"),
    INDEX("index"),
    WINDOW("window"),
    OPTIM("optim"),
    GEMM("gemm");

    private final String file;

    Module(String file) {
      this.file = file;
    }

    /** The class path resource of the module's PTX. */
    String resource() {
      return "/dev/ondevice/cuda/" + file + ".ptx";
    }
  }

  private static final int LOG_BYTES = 16 * 1024;
  private static final Pattern ENTRY =
      Pattern.compile(
          "\\.entry\\s+(\\w+)\\(\\s*\\.param\\s+\\.align\\s+\\d+\\s+\\.b8\\s+\\w+\\[(\\d+)\\]");

  private final CudaDevice device;
  private final Map<Module, CUmodule> modules = new EnumMap<>(Module.class);
  private final Map<String, Kernel> kernels = new ConcurrentHashMap<>();

  /** A loaded kernel and the size of its one struct argument, as its PTX declares it. */
  record Kernel(String name, CUfunction function, int argumentBytes) {}

  KernelLibrary(CudaDevice device) {
    this.device = device;
  }

  /** The kernel {@code name} of {@code module}. */
  Kernel kernel(Module module, String name) {
    Kernel k = kernels.get(name);
    if (k == null) {
      k = load(module, name);
    }
    return k;
  }

  private synchronized Kernel load(Module module, String name) {
    Kernel k = kernels.get(name);
    if (k != null) {
      return k;
    }
    Integer bytes = argumentSizes(module).get(name);
    if (bytes == null) {
      throw new IllegalStateException(
          "The CUDA kernel " + name + " is not in " + module.resource());
    }
    device.makeCurrent();
    CUmodule m = modules.computeIfAbsent(module, this::loadModule);
    CUfunction f = new CUfunction();
    check(
        JCudaDriver.cuModuleGetFunction(f, m, name),
        "cuModuleGetFunction(" + name + ")",
        device.device());
    k = new Kernel(name, f, bytes);
    kernels.put(name, k);
    return k;
  }

  /** Each kernel of {@code module} and the bytes of its struct argument, from the PTX. */
  static Map<String, Integer> argumentSizes(Module module) {
    Map<String, Integer> sizes = new HashMap<>();
    Matcher m = ENTRY.matcher(source(module));
    while (m.find()) {
      sizes.put(m.group(1), Integer.parseInt(m.group(2)));
    }
    return sizes;
  }

  /** Loads the PTX of {@code module}; a failure carries the driver's compiler log. */
  private CUmodule loadModule(Module module) {
    byte[] ptx = ptx(module);
    CUmodule m = new CUmodule();
    JITOptions options = new JITOptions();
    options.putBytes(CUjit_option.CU_JIT_ERROR_LOG_BUFFER, new byte[LOG_BYTES]);
    options.putInt(CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, LOG_BYTES);
    int r = JCudaDriver.cuModuleLoadDataJIT(m, Pointer.to(ptx), options);
    if (r != CUresult.CUDA_SUCCESS) {
      String log = options.getString(CUjit_option.CU_JIT_ERROR_LOG_BUFFER);
      throw new IllegalStateException(
          "The driver could not load the CUDA kernels "
              + module.resource()
              + " on "
              + device
              + ": "
              + CUresult.stringFor(r)
              + (log == null || log.isBlank() ? "" : "; " + log.trim())
              + " (the kernels are PTX ISA 8.0 for sm_80: drivers for CUDA 12.0 and newer, GPUs of compute"
              + " capability 8.0 and newer)");
    }
    return m;
  }

  /** The PTX of {@code module}, zero-terminated as the driver wants it. */
  static byte[] ptx(Module module) {
    byte[] text = source(module).getBytes(StandardCharsets.US_ASCII);
    byte[] terminated = new byte[text.length + 1];
    System.arraycopy(text, 0, terminated, 0, text.length);
    return terminated;
  }

  /** The PTX text of {@code module}. */
  static String source(Module module) {
    try (InputStream in = KernelLibrary.class.getResourceAsStream(module.resource())) {
      if (in == null) {
        throw new IllegalStateException(
            "The CUDA kernels "
                + module.resource()
                + " are missing from the class"
                + " path: the runtime jar was built without them");
      }
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + module.resource(), e);
    }
  }
}
