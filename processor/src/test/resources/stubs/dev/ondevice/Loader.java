package dev.ondevice;

import dev.ondevice.annotations.BatchSource;
import dev.ondevice.annotations.OnDevice;
import java.util.Iterator;

/** Stub of a data loader: iterating it is a batch loop. */
@BatchSource
public class Loader implements Iterable<Loader.Batch> {
  /** Stub of a batch, as the runtime's Batch: its tensors are on the CPU. */
  public static class Batch {
    @OnDevice("cpu")
    public Tensor inputs() {
      return null;
    }

    @OnDevice("cpu")
    public Tensor targets() {
      return null;
    }

    public java.util.List<Tensor> tensors() {
      return null;
    }
  }

  /** Stub of an iterator over batches, as DataLoader.BatchIterator. */
  @BatchSource
  public static class Batches implements Iterator<Batch> {
    @Override
    public boolean hasNext() {
      return false;
    }

    @Override
    public Batch next() {
      return null;
    }
  }

  @Override
  public Batches iterator() {
    return null;
  }
}
