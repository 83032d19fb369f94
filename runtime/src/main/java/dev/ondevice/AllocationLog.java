package dev.ondevice;

import dev.ondevice.internal.backend.Storage;
import java.util.ArrayList;
import java.util.List;

/**
 * The storages that tensor factories made on this thread while a log was open, in order. The
 * backward engine opens one to tell the memory it made itself (gradients, temporaries of backward
 * functions), which nobody else can hold, from the caller's tensors, which it must never free.
 */
final class AllocationLog implements AutoCloseable {
  private static final ThreadLocal<AllocationLog> CURRENT = new ThreadLocal<>();
  private final List<Storage> storages = new ArrayList<>();
  private final AllocationLog outer;

  private AllocationLog(AllocationLog outer) {
    this.outer = outer;
  }

  /** Starts logging on this thread until closed; the logs already open log on as well. */
  static AllocationLog open() {
    AllocationLog log = new AllocationLog(CURRENT.get());
    CURRENT.set(log);
    return log;
  }

  /** Logs {@code storage} in each log open on this thread. */
  static void made(Storage storage) {
    for (AllocationLog log = CURRENT.get(); log != null; log = log.outer) {
      log.storages.add(storage);
    }
  }

  /** How many storages were logged so far. */
  int size() {
    return storages.size();
  }

  /** The storages logged from position {@code from} on. */
  List<Storage> since(int from) {
    return storages.subList(from, storages.size());
  }

  @Override
  public void close() {
    CURRENT.set(outer);
  }
}
