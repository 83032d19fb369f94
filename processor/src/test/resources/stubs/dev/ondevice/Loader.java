package dev.ondevice;

import dev.ondevice.annotations.BatchSource;
import java.util.Iterator;

/** Stub of a data loader: iterating it is a batch loop. */
@BatchSource
public class Loader implements Iterable<Loader.Batch> {
  /** Stub of a batch. */
  public static class Batch {
    public Tensor inputs() {
      return null;
    }

    public Tensor targets() {
      return null;
    }
  }

  @Override
  public Iterator<Batch> iterator() {
    return null;
  }
}
