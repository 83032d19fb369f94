package dev.ondevice;

import dev.ondevice.annotations.HostSync;

/**
 * The result of {@code max(dim)} and {@code min(dim)}: the extreme values and their int64
 * positions.
 */
public final class ValuesAndIndices {
  private final Tensor values;
  private final Tensor indices;

  ValuesAndIndices(Tensor values, Tensor indices) {
    this.values = values;
    this.indices = indices;
  }

  /** The values. */
  public Tensor values() {
    return values;
  }

  /** Their positions along the reduced dimension. */
  public Tensor indices() {
    return indices;
  }

  /** Both tensors, as PyTorch prints its {@code (values, indices)} pair; reads them on the host. */
  @HostSync
  @Override
  public String toString() {
    return "ValuesAndIndices(\nvalues=" + values + ",\nindices=" + indices + ")";
  }
}
