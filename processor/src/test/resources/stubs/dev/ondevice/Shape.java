package dev.ondevice;

import dev.ondevice.annotations.ZeroDim;

/** Stub of the runtime's Shape. */
public final class Shape {
  public static Shape of(@ZeroDim long... dims) {
    return null;
  }

  @ZeroDim
  public static Shape scalar() {
    return null;
  }
}
