package dev.ondevice.internal.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * Resolves devices to backends, by device type: the providers ({@link BackendProvider}) are found
 * through {@link ServiceLoader}, so that this registry and the core above it never name a backend
 * class. The devices of a type are opened on the first question about that type, not before: a
 * program that stays on the CPU never loads the CUDA driver. Emulated CUDA devices exist only when
 * asked for, with {@code -Dondevice.emulatedCudaDevices=N} or {@link #installEmulation}, and then
 * replace the real ones: nobody gets one by accident. Availability questions never throw. Internal;
 * the public face is {@code Cuda} and {@code EmulatedCuda}.
 */
public final class Backends {
  /** The system property that asks for emulated CUDA devices. */
  public static final String EMULATION_PROPERTY = "ondevice.emulatedCudaDevices";

  private static final String EMULATION_HINT =
      " (to test device-agnostic code without a GPU, emulate devices with -D"
          + EMULATION_PROPERTY
          + "=N)";

  private static final Map<String, DeviceSet> OPEN = new ConcurrentHashMap<>();
  private static volatile List<BackendProvider> providers;
  private static volatile BiFunction<String, Throwable, RuntimeException> outOfMemory;

  private Backends() {}

  /** The CPU's backend. */
  public static HostBackend cpu() {
    return Cpu.BACKEND;
  }

  /** The CPU backend, looked up once. */
  private static final class Cpu {
    static final HostBackend BACKEND = find();

    private static HostBackend find() {
      DeviceSet set = devices(DeviceId.CPU_TYPE);
      if (set.count() == 0 || !(set.backends().get(0) instanceof HostBackend h)) {
        throw new IllegalStateException(
            "No CPU backend: "
                + (set.count() == 0
                    ? set.reason()
                    : set.backends().get(0).getClass().getName() + " does not run on host memory")
                + "; is META-INF/services/"
                + BackendProvider.class.getName()
                + " on the class path?");
      }
      return h;
    }
  }

  /**
   * The backend of {@code device}.
   *
   * @throws IllegalStateException if the device does not exist here, with the reason
   */
  public static Backend of(DeviceId device) {
    if (device.isCpu()) {
      return cpu();
    }
    DeviceSet set = devices(device.type());
    if (set.count() == 0) {
      throw new IllegalStateException(label(device.type()) + " is not available: " + set.reason());
    }
    int i = device.resolved().index();
    if (i >= set.count()) {
      int n = set.count();
      String t = device.type();
      throw new IllegalStateException(
          "Invalid device "
              + device
              + ": there "
              + (n == 1
                  ? "is 1 " + label(t) + " device (" + t + ":0)"
                  : "are "
                      + n
                      + " "
                      + label(t)
                      + " devices ("
                      + t
                      + ":0 to "
                      + t
                      + ":"
                      + (n - 1)
                      + ")"));
    }
    return set.backends().get(i);
  }

  /** The number of devices of {@code type}; 0 where there are none. Never throws. */
  public static int deviceCount(String type) {
    return devices(type).count();
  }

  /** Why there are no devices of {@code type}, or null when there are. Never throws. */
  public static String unavailableReason(String type) {
    return devices(type).reason();
  }

  /** Whether the devices of {@code type} are emulated. Never throws. */
  public static boolean emulated(String type) {
    return devices(type).emulated();
  }

  /** The devices of {@code type} and what runs them, for people, in one line. Never throws. */
  public static String summary(String type) {
    DeviceSet set = devices(type);
    if (set.summary() != null) {
      return set.summary();
    }
    return set.count() == 0
        ? label(type) + " is not available: " + set.reason()
        : set.count() + " " + label(type) + " device" + (set.count() == 1 ? "" : "s");
  }

  /** Returns the cached, unused memory of every open device (and host blocks) to the system. */
  public static void emptyCache() {
    for (DeviceSet set : OPEN.values()) {
      for (Backend b : set.backends()) {
        b.emptyCache();
      }
    }
    HostAllocator.emptyCache();
  }

  /** The device for people: {@code cuda:0 (emulated)} for an emulated device. Opens nothing. */
  public static String describe(DeviceId device) {
    DeviceSet set = device.isCpu() ? null : OPEN.get(device.type());
    if (set != null && set.emulated() && device.resolved().index() < set.count()) {
      return device + " (emulated)";
    }
    return device.toString();
  }

  /**
   * Replaces the devices of {@code type} by {@code count} emulated ones (0 removes them); returns
   * what to call to restore the previous devices, which also stops the streams of the installed
   * ones.
   */
  public static synchronized Runnable installEmulation(String type, int count) {
    if (count < 0) {
      throw new IllegalArgumentException(
          "The number of emulated " + label(type) + " devices must be >= 0, got " + count);
    }
    DeviceSet previous = devices(type);
    DeviceSet installed = emulation(type, count, "emulation was switched off");
    OPEN.put(type, installed);
    return () -> {
      synchronized (Backends.class) {
        OPEN.put(type, previous);
      }
      installed.close();
    };
  }

  /**
   * The exception for a device without the memory asked for: the public {@code
   * DeviceOutOfMemoryException}, which the core registers through {@link OutOfMemoryFactory} (this
   * layer cannot name it), or an {@link IllegalStateException} where no core is there.
   */
  public static RuntimeException outOfMemory(String message, Throwable cause) {
    BiFunction<String, Throwable, RuntimeException> f = outOfMemory;
    if (f == null) {
      f = loadOutOfMemory();
    }
    return f.apply(message, cause);
  }

  private static synchronized BiFunction<String, Throwable, RuntimeException> loadOutOfMemory() {
    BiFunction<String, Throwable, RuntimeException> f = outOfMemory;
    if (f == null) {
      f = IllegalStateException::new;
      for (OutOfMemoryFactory factory :
          ServiceLoader.load(OutOfMemoryFactory.class, Backends.class.getClassLoader())) {
        f = factory::create;
        break;
      }
      outOfMemory = f;
    }
    return f;
  }

  /** The devices of {@code type}, opened on the first call. */
  private static DeviceSet devices(String type) {
    DeviceSet set = OPEN.get(type);
    if (set == null) {
      synchronized (Backends.class) {
        set = OPEN.get(type);
        if (set == null) {
          set = open(type);
          OPEN.put(type, set);
        }
      }
    }
    return set;
  }

  private static DeviceSet open(String type) {
    String value = DeviceId.CUDA_TYPE.equals(type) ? System.getProperty(EMULATION_PROPERTY) : null;
    if (value != null && !value.isBlank()) {
      int n;
      try {
        n = Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n < 0 || n > 64) {
        return DeviceSet.none(
            "-D"
                + EMULATION_PROPERTY
                + "="
                + value
                + " is not a number of devices between 0 and 64");
      }
      return emulation(type, n, "-D" + EMULATION_PROPERTY + "=0 asks for no devices");
    }
    for (BackendProvider p : providers()) {
      if (p.deviceType().equals(type) && !p.emulates()) {
        try {
          DeviceSet set = p.open(-1);
          if (set.count() == 0 && DeviceId.CUDA_TYPE.equals(type)) {
            return DeviceSet.none(set.reason() + EMULATION_HINT);
          }
          return set;
        } catch (RuntimeException | LinkageError e) {
          return DeviceSet.none("the " + label(type) + " backend could not start (" + e + ")");
        }
      }
    }
    return DeviceSet.none(
        "no "
            + label(type)
            + " backend is on the class path"
            + (DeviceId.CUDA_TYPE.equals(type) ? EMULATION_HINT : ""));
  }

  private static DeviceSet emulation(String type, int count, String reasonIfNone) {
    if (count > 0) {
      for (BackendProvider p : providers()) {
        if (p.deviceType().equals(type) && p.emulates()) {
          return p.open(count);
        }
      }
      return DeviceSet.none("no backend on the class path emulates " + label(type));
    }
    return DeviceSet.none(reasonIfNone);
  }

  /** The registered providers, loaded once; a provider that fails to load is left out. */
  private static List<BackendProvider> providers() {
    List<BackendProvider> p = providers;
    if (p == null) {
      synchronized (Backends.class) {
        p = providers;
        if (p == null) {
          p = new ArrayList<>();
          var it =
              ServiceLoader.load(BackendProvider.class, Backends.class.getClassLoader()).iterator();
          while (true) {
            try {
              if (!it.hasNext()) {
                break;
              }
              p.add(it.next());
            } catch (ServiceConfigurationError | LinkageError e) {
              // A backend whose classes cannot load is as good as absent; availability never
              // throws.
            }
          }
          p = List.copyOf(p);
          providers = p;
        }
      }
    }
    return p;
  }

  private static String label(String type) {
    return DeviceId.CUDA_TYPE.equals(type) ? "CUDA" : type.toUpperCase(java.util.Locale.ROOT);
  }
}
