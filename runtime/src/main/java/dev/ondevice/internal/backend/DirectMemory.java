package dev.ondevice.internal.backend;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * The JDK's direct memory, where host tensors live: its limit, and the message of a request it
 * cannot meet.
 */
final class DirectMemory {
  private DirectMemory() {}

  /**
   * The limit on direct memory: {@code -XX:MaxDirectMemorySize} where it is set, else the JDK's
   * default, the maximum heap. Where the JVM does not tell (not HotSpot), the maximum heap too.
   */
  static long limit() {
    try {
      HotSpotDiagnosticMXBean vm =
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      long set = vm == null ? 0 : Long.parseLong(vm.getVMOption("MaxDirectMemorySize").getValue());
      return set > 0 ? set : Runtime.getRuntime().maxMemory();
    } catch (RuntimeException e) {
      return Runtime.getRuntime().maxMemory();
    }
  }

  /** What went wrong and what to do, for a request of {@code bytes} the JDK refused twice. */
  static String message(
      String device, long bytes, long live, long cached, long liveAfter, long limit) {
    return String.format(
        Locale.ROOT,
        "Out of host memory on %s: tried to allocate %s of direct memory, whose limit"
            + " is %s; tensors held %s and the allocator's cache %s, which was given back, and after a garbage"
            + " collection tensors still hold %s. Free the tensors you no longer need, use smaller batches, or raise"
            + " the limit with the JVM option -XX:MaxDirectMemorySize=<size> (e.g. -XX:MaxDirectMemorySize=16g; by"
            + " default it is the maximum heap, -Xmx)",
        device,
        Bytes.human(bytes),
        Bytes.human(limit),
        Bytes.human(live),
        Bytes.human(cached),
        Bytes.human(liveAfter));
  }
}
