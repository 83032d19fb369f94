package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.ScalarType;

/** Reads and writes single elements of any dtype as double or long: the slow, general path. */
final class Elements {
  private Elements() {}

  static double getDouble(HostStorage s, ScalarType t, int i) {
    return switch (t) {
      case FLOAT32 -> s.floats().get(i);
      case FLOAT64 -> s.doubles().get(i);
      case INT64 -> s.longs().get(i);
      default -> s.bytes().get(i) != 0 ? 1 : 0;
    };
  }

  static long getLong(HostStorage s, ScalarType t, int i) {
    return switch (t) {
      case FLOAT32 -> (long) s.floats().get(i);
      case FLOAT64 -> (long) s.doubles().get(i);
      case INT64 -> s.longs().get(i);
      default -> s.bytes().get(i) != 0 ? 1 : 0;
    };
  }

  static boolean getBool(HostStorage s, ScalarType t, int i) {
    return switch (t) {
      case FLOAT32 -> s.floats().get(i) != 0;
      case FLOAT64 -> s.doubles().get(i) != 0;
      case INT64 -> s.longs().get(i) != 0;
      default -> s.bytes().get(i) != 0;
    };
  }

  static void setDouble(HostStorage s, ScalarType t, int i, double v) {
    switch (t) {
      case FLOAT32 -> s.floats().put(i, (float) v);
      case FLOAT64 -> s.doubles().put(i, v);
      case INT64 -> s.longs().put(i, (long) v);
      default -> s.bytes().put(i, (byte) (v != 0 ? 1 : 0));
    }
  }

  static void setLong(HostStorage s, ScalarType t, int i, long v) {
    switch (t) {
      case FLOAT32 -> s.floats().put(i, (float) v);
      case FLOAT64 -> s.doubles().put(i, (double) v);
      case INT64 -> s.longs().put(i, v);
      default -> s.bytes().put(i, (byte) (v != 0 ? 1 : 0));
    }
  }

  /** Copies one element between storages of the same dtype. */
  static void copy(HostStorage from, int i, HostStorage to, int j, ScalarType t) {
    switch (t) {
      case FLOAT32 -> to.floats().put(j, from.floats().get(i));
      case FLOAT64 -> to.doubles().put(j, from.doubles().get(i));
      case INT64 -> to.longs().put(j, from.longs().get(i));
      default -> to.bytes().put(j, from.bytes().get(i));
    }
  }
}
