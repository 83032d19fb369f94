package dev.ondevice.internal.backend;

import java.util.concurrent.LinkedBlockingQueue;

/**
 * An in-order queue of work for one device, run by its own thread: the emulation of a CUDA stream.
 * Work submitted here runs asynchronously to the host and in submission order.
 *
 * <p>An exception thrown by queued work does not stop the stream; the first one is kept and thrown
 * at the next synchronisation, as a CUDA error surfaces at the next synchronising call.
 */
public final class Stream {
  private final DeviceId device;

  /**
   * At most this many items wait in the queue; submitting more blocks the host until the stream
   * catches up, as a full CUDA launch queue does. This bounds the memory a host running ahead can
   * allocate for work not yet done.
   */
  static final int CAPACITY = 1024;

  private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>(CAPACITY);
  private final Thread worker;
  private volatile RuntimeException firstError;
  private volatile boolean closed;

  public Stream(DeviceId device, String name) {
    this.device = device;
    worker = new Thread(this::runLoop, name);
    worker.setDaemon(true);
    worker.start();
  }

  /** Queues work; it runs after everything queued before it. */
  public void submit(Runnable work) {
    checkOpen();
    put(work);
  }

  /** An event that completes when everything queued so far has run. */
  public Event record() {
    checkOpen();
    Event.Future f = Event.future(device, this);
    put(f::complete);
    return f.event();
  }

  private void put(Runnable work) {
    try {
      queue.put(work);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while queueing work on " + device, e);
    }
  }

  /** Lets the queued work finish, then stops the thread; later submissions fail. */
  public void close() {
    if (!closed) {
      closed = true;
      put(() -> Thread.currentThread().interrupt());
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(
          device
              + " (emulated) no longer exists: the EmulatedCuda installation"
              + " that created it was closed");
    }
  }

  /** Waits on the host until everything queued so far has run, then throws any queued error. */
  public void synchronize() {
    record().hostWait();
  }

  /** Throws, once, the first error raised by queued work since the last call. */
  void throwPendingError() {
    RuntimeException e = firstError;
    if (e != null) {
      firstError = null;
      throw new AsyncDeviceException(device, e);
    }
  }

  private void runLoop() {
    while (!worker.isInterrupted()) {
      Runnable work;
      try {
        work = queue.take();
      } catch (InterruptedException e) {
        if (closed) {
          return;
        }
        continue;
      }
      try {
        work.run();
      } catch (RuntimeException | Error e) {
        if (firstError == null) {
          firstError = e instanceof RuntimeException r ? r : new RuntimeException(e);
        }
      }
    }
  }
}
