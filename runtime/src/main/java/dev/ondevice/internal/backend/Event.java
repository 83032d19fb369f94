package dev.ondevice.internal.backend;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A point in a device's stream: completes when all work submitted before it has run. Internal to
 * the runtime; an emulated stream completes its events on its own thread, the CUDA backend backs
 * them with CUDA events ({@link Completion}).
 */
public final class Event {
  private final DeviceId device;
  private final Completion completion;

  /**
   * How an event learns that its work has run, and where the errors of that work surface. Internal
   * to the runtime: the seam between events and the streams of each backend.
   */
  public interface Completion {
    /** Whether the work before the event has run; never waits. */
    boolean isDone();

    /** Waits until the work before the event has run. */
    void await();

    /** Throws, once, the first error the stream's work raised since the last report. */
    void throwPendingError();
  }

  private Event(DeviceId device, Completion completion) {
    this.device = device;
    this.completion = completion;
  }

  /** An event of {@code device} that completes as {@code completion} says. */
  public static Event of(DeviceId device, Completion completion) {
    return new Event(device, completion);
  }

  /** An event completed by {@link Future#complete()} on an emulated stream. */
  static Future future(DeviceId device, Stream stream) {
    return new Future(device, stream);
  }

  /** Already-completed event, for work that ran synchronously. */
  public static Event completed(DeviceId device) {
    Future f = new Future(device, null);
    f.complete();
    return f.event();
  }

  /** How this event completes: the backend's handle on it. */
  public Completion completion() {
    return completion;
  }

  /** The device whose stream this event belongs to. */
  public DeviceId device() {
    return device;
  }

  /** Whether the work before this event has run. */
  public boolean isDone() {
    return completion.isDone();
  }

  /**
   * Whether the event has completed, asked without waiting (as {@code cudaEventQuery}): no
   * synchronisation is counted; once complete, the stream's pending error is thrown, as at a wait.
   */
  public boolean query() {
    if (!completion.isDone()) {
      return false;
    }
    completion.throwPendingError();
    return true;
  }

  /** Waits for the event from a stream: no host synchronisation is counted. */
  public void streamWait() {
    completion.await();
  }

  /**
   * Waits for the event on the host, counting a host synchronisation on its device, then throws the
   * first error raised by the stream's queued work since the last report, as an {@link
   * AsyncDeviceException}: every host wait is where a device error surfaces.
   */
  public void hostWait() {
    TransferCounters.of(device).recordSync();
    completion.await();
    completion.throwPendingError();
  }

  /**
   * The completion of an event on an emulated stream (or of synchronous work, without a stream).
   */
  static final class Future implements Completion {
    private final DeviceId device;

    /** The stream whose errors a host wait reports; null for work that ran synchronously. */
    private final Stream stream;

    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final Event event;

    private Future(DeviceId device, Stream stream) {
      this.device = device;
      this.stream = stream;
      this.event = new Event(device, this);
    }

    /** The event this completes. */
    Event event() {
      return event;
    }

    /** Marks the work before the event as run. */
    void complete() {
      done.complete(null);
    }

    @Override
    public boolean isDone() {
      return done.isDone();
    }

    @Override
    public void await() {
      try {
        done.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while waiting for " + device, e);
      } catch (ExecutionException e) {
        throw new IllegalStateException("Waiting for " + device + " failed", e.getCause());
      }
    }

    @Override
    public void throwPendingError() {
      if (stream != null) {
        stream.throwPendingError();
      }
    }
  }
}
