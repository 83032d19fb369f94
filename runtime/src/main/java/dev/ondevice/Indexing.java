package dev.ondevice;

/** Gather, index-select and one-hot, with their gradients. */
final class Indexing {
  private Indexing() {}

  static Tensor gather(Tensor a, int dim, Tensor index) {
    Checks.index("gather", "index", index);
    if (!a.device().equals(index.device())) {
      throw new DeviceMismatchException(a.device(), index.device(), "index", "gather");
    }
    int rank = Math.max(a.dim(), 1);
    int d = Checks.dim("gather", dim, rank);
    if (index.dim() != a.dim()) {
      throw new IllegalArgumentException(
          "gather: argument 'index' of shape "
              + index.shape()
              + " must have as many dimensions as self, shape "
              + a.shape());
    }
    for (int i = 0; i < a.dim(); i++) {
      if (i != d && index.data.size(i) > a.data.size(i)) {
        throw new IllegalArgumentException(
            "gather: argument 'index' of shape "
                + index.shape()
                + " is larger than self "
                + a.shape()
                + " in dimension "
                + i);
      }
    }
    Tensor out = Creation.empty(index.data.sizes().clone(), a.dtype(), a.device());
    if (a.dim() == 0) {
      a.data.storage().backend().copy(a.data, out.data);
    } else {
      a.data.storage().backend().gather(a.data, d, index.data, out.data);
    }
    if (!a.dtype().isFloatingPoint()) {
      return out;
    }
    return Node.record(
        "gather",
        out,
        new Tensor[] {a},
        new Tensor[] {index},
        (g, needs) -> {
          if (a.dim() == 0) {
            return new Tensor[] {g};
          }
          Tensor z = Tensor.zeros(a.shape(), g.dtype(), g.device());
          z.data.storage().backend().scatterAdd(z.data, d, index.data, g.data);
          return new Tensor[] {z};
        });
  }

  static Tensor indexSelect(Tensor a, int dim, Tensor index) {
    Checks.index("indexSelect", "index", index);
    if (!a.device().equals(index.device())) {
      throw new DeviceMismatchException(a.device(), index.device(), "index", "indexSelect");
    }
    if (index.dim() > 1) {
      throw new IllegalArgumentException(
          "indexSelect: argument 'index' must be 1-d, got shape " + index.shape());
    }
    if (a.dim() == 0) {
      throw new IllegalArgumentException("indexSelect: self must have at least one dimension");
    }
    Tensor idx = index.reshape(-1);
    int d = Checks.dim("indexSelect", dim, a.dim());
    int[] sizes = a.data.sizes().clone();
    sizes[d] = idx.data.size(0);
    Tensor out = Creation.empty(sizes, a.dtype(), a.device());
    a.data.storage().backend().indexSelect(a.data, d, idx.data, out.data);
    if (!a.dtype().isFloatingPoint()) {
      return out;
    }
    return Node.record(
        "indexSelect",
        out,
        new Tensor[] {a},
        new Tensor[] {idx},
        (g, needs) -> {
          Tensor z = Tensor.zeros(a.shape(), g.dtype(), g.device());
          z.data.storage().backend().indexAdd(z.data, d, idx.data, g.data);
          return new Tensor[] {z};
        });
  }

  static Tensor oneHot(Tensor indices, int numClasses) {
    Checks.index("oneHot", "indices", indices);
    if (numClasses <= 0) {
      throw new IllegalArgumentException("oneHot: numClasses must be positive, got " + numClasses);
    }
    if (indices.device().isCpu() && indices.numel() > 0) {
      long min = indices.min().itemAsLong();
      long max = indices.max().itemAsLong();
      if (min < 0 || max >= numClasses) {
        throw new IndexOutOfBoundsException(
            "oneHot: class index "
                + (min < 0 ? min : max)
                + " is out of range for "
                + numClasses
                + " classes (argument 'indices')");
      }
    }
    Tensor classes = Tensor.arange(0, numClasses, indices.device());
    Tensor checked = indices;
    if (!indices.device().isCpu()) {
      // The range is checked where the indices are, without a synchronisation: an index out of
      // range fails the indexSelect, reported at the next synchronisation as a device error.
      checked = classes.indexSelect(0, indices.reshape(-1)).reshape(indices.shape().toArray());
    }
    return checked.unsqueeze(-1).eq(classes).to(DType.INT64);
  }
}
