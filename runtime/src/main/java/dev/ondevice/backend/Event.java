package dev.ondevice.backend;

import dev.ondevice.Device;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** A point in a device's stream: completes when all work submitted before it has run. */
public final class Event {
  private final Device device;
  /** The stream whose errors a host wait reports; null for work that ran synchronously. */
  private final Stream stream;
  private final CompletableFuture<Void> done = new CompletableFuture<>();

  Event(Device device, Stream stream) {
    this.device = device;
    this.stream = stream;
  }

  /** Already-completed event, for work that ran synchronously. */
  static Event completed(Device device) {
    Event e = new Event(device, null);
    e.complete();
    return e;
  }

  void complete() {
    done.complete(null);
  }

  /** The device whose stream this event belongs to. */
  public Device device() {
    return device;
  }

  /** Whether the work before this event has run. */
  public boolean isDone() {
    return done.isDone();
  }

  /**
   * Whether the event has completed, asked without waiting (as {@code cudaEventQuery}): no
   * synchronisation is counted; once complete, the stream's pending error is thrown, as at a wait.
   */
  public boolean query() {
    if (!done.isDone()) {
      return false;
    }
    if (stream != null) {
      stream.throwPendingError();
    }
    return true;
  }

  /** Waits for the event from a stream: no host synchronisation is counted. */
  void streamWait() {
    join();
  }

  /**
   * Waits for the event on the host, counting a host synchronisation on its device, then throws
   * the first error raised by the stream's queued work since the last report, as an {@link
   * AsyncDeviceException}: every host wait is where a device error surfaces.
   */
  public void hostWait() {
    TransferCounters.of(device).recordSync();
    join();
    if (stream != null) {
      stream.throwPendingError();
    }
  }

  private void join() {
    try {
      done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for " + device, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("Waiting for " + device + " failed", e.getCause());
    }
  }
}
