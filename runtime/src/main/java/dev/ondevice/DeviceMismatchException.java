package dev.ondevice;

/**
 * Thrown when the tensor operands of one op live on different devices. The message is PyTorch's:
 * {@code Expected all tensors to be on the same device, but found at least two devices, cuda:0 and
 * cpu! (argument 'other' of add)}.
 */
public final class DeviceMismatchException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final transient Device expected;
  private final transient Device found;
  private final String argument;
  private final String op;

  /**
   * The exception for {@code op}, whose first tensor operand is on {@code expected} and whose
   * {@code argument} is on {@code found}: for your own ops, with PyTorch's message.
   */
  public DeviceMismatchException(Device expected, Device found, String argument, String op) {
    this(expected, found, argument, op, null);
  }

  /** The same, with a sentence after PyTorch's message saying what to do (null for none). */
  public DeviceMismatchException(
      Device expected, Device found, String argument, String op, String hint) {
    super(
        "Expected all tensors to be on the same device, but found at least two devices, "
            + expected
            + " and "
            + found
            + "! (argument '"
            + argument
            + "' of "
            + op
            + ")"
            + (hint == null ? "" : " " + hint));
    this.expected = expected;
    this.found = found;
    this.argument = argument;
    this.op = op;
  }

  /** The device of the first tensor operand. */
  public Device expected() {
    return expected;
  }

  /** The other device. */
  public Device found() {
    return found;
  }

  /** The argument on the other device. */
  public String argument() {
    return argument;
  }

  /** The op. */
  public String op() {
    return op;
  }
}
