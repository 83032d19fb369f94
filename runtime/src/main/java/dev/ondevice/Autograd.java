package dev.ondevice;

/**
 * Gradient mode. Ops record the graph that {@link Tensor#backward()} walks only while gradient mode
 * is on (the default); {@link #noGrad()} switches it off for the current thread, for evaluation and
 * for optimizer updates.
 *
 * <pre>{@code
 * try (Autograd.Scope ignored = Autograd.noGrad()) {
 *   weight.subi(weight.grad().mul(lr));
 * }
 * }</pre>
 */
public final class Autograd {
  private static final ThreadLocal<boolean[]> ENABLED =
      ThreadLocal.withInitial(() -> new boolean[] {true});

  private Autograd() {}

  /** Whether ops on this thread record the graph. */
  public static boolean isGradEnabled() {
    return ENABLED.get()[0];
  }

  /** Switches gradient recording off on this thread until the returned scope is closed. */
  public static Scope noGrad() {
    return setEnabled(false);
  }

  /** Switches gradient recording on on this thread until the returned scope is closed. */
  public static Scope enableGrad() {
    return setEnabled(true);
  }

  private static Scope setEnabled(boolean on) {
    boolean[] flag = ENABLED.get();
    boolean previous = flag[0];
    flag[0] = on;
    return new Scope(flag, previous);
  }

  /** Restores the previous gradient mode when closed. */
  public static final class Scope implements AutoCloseable {
    private final boolean[] flag;
    private final boolean previous;
    private boolean closed;

    private Scope(boolean[] flag, boolean previous) {
      this.flag = flag;
      this.previous = previous;
    }

    @Override
    public void close() {
      if (!closed) {
        flag[0] = previous;
        closed = true;
      }
    }
  }
}
