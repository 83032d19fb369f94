package dev.ondevice.internal.backend;

import java.util.Locale;

/** Byte counts written for people, in the allocators' messages. Internal to the runtime. */
public final class Bytes {
  private Bytes() {}

  /** {@code 1.50 GiB}, {@code 512 B}: binary units, two decimals. */
  public static String human(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return u == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.2f %s", v, units[u]);
  }
}
