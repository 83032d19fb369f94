package dev.ondevice.internal.backend;

/**
 * A tensor's memory was used after the runtime had handed it back to its allocator. The message
 * names what freed it and how to keep it. Thrown instead of reading memory that another tensor may
 * own by now.
 */
public final class FreedMemoryException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  FreedMemoryException(long bytes, DeviceId device, String freedBy) {
    super(
        "This tensor's memory ("
            + Bytes.human(bytes)
            + " on "
            + device
            + ") was freed "
            + freedBy
            + ", and can no longer be read or written");
  }
}
