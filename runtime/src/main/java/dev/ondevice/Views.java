package dev.ondevice;

import dev.ondevice.internal.backend.Strided;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Views (same memory, other sizes and strides), copies, joins, and the gradient of broadcasting.
 */
final class Views {
  private Views() {}

  /** A view of {@code t}'s memory with another layout, recorded with the given backward. */
  private static Tensor view(
      String op, Tensor t, int offset, int[] sizes, int[] strides, Node.Backward backward) {
    Tensor out = new Tensor(t.data.withLayout(offset, sizes, strides));
    return Node.record(op, out, new Tensor[] {t}, backward);
  }

  /** The data of a view broadcast to {@code sizes} (stride 0 on repeated dimensions). */
  static Strided expandData(Strided s, int[] sizes) {
    if (Arrays.equals(s.sizes(), sizes)) {
      return s;
    }
    int lead = sizes.length - s.rank();
    int[] strides = new int[sizes.length];
    for (int i = 0; i < s.rank(); i++) {
      strides[lead + i] = s.size(i) == 1 && sizes[lead + i] != 1 ? 0 : s.stride(i);
    }
    return s.withLayout(s.offset(), sizes.clone(), strides);
  }

  /** Sums a broadcast gradient back to the shape of the operand it came from. */
  static Tensor sumToShape(Tensor g, int[] sizes) {
    int[] gs = g.data.sizes();
    if (Arrays.equals(gs, sizes)) {
      return g;
    }
    int lead = gs.length - sizes.length;
    List<Integer> dims = new ArrayList<>();
    for (int i = 0; i < gs.length; i++) {
      if (i < lead || (sizes[i - lead] == 1 && gs[i] != 1)) {
        dims.add(i);
      }
    }
    Tensor summed =
        dims.isEmpty() ? g : g.sum(dims.stream().mapToInt(Integer::intValue).toArray(), true);
    return summed.reshape(Shape.of(sizes).toArray());
  }

  private static int[] inferSizes(String op, Tensor t, long[] shape) {
    int infer = -1;
    long known = 1;
    for (int i = 0; i < shape.length; i++) {
      if (shape[i] == -1) {
        if (infer >= 0) {
          throw new IllegalArgumentException(
              op + ": only one dimension can be -1 in " + Arrays.toString(shape));
        }
        infer = i;
      } else if (shape[i] < 0) {
        throw new IllegalArgumentException(
            op + ": invalid size " + shape[i] + " in " + Arrays.toString(shape));
      } else {
        known *= shape[i];
      }
    }
    long numel = t.numel();
    long[] resolved = shape.clone();
    if (infer >= 0) {
      if (numel == 0 && known == 0) {
        // As PyTorch's infer_size: [-1, 2] of no elements is [0, 2], but [0, -1] could be [0,
        // anything].
        throw new IllegalArgumentException(
            op
                + ": cannot reshape a tensor of 0 elements (shape "
                + t.shape()
                + ") into shape "
                + Arrays.toString(shape)
                + ", because the unspecified size -1 could be any value;"
                + " give every size");
      }
      if (known == 0 || numel % known != 0) {
        throw new IllegalArgumentException(
            op
                + ": shape "
                + Arrays.toString(shape)
                + " is invalid for a tensor of "
                + numel
                + " elements (shape "
                + t.shape()
                + ")");
      }
      resolved[infer] = numel / known;
    } else if (known != numel) {
      throw new IllegalArgumentException(
          op
              + ": shape "
              + Arrays.toString(shape)
              + " is invalid for a tensor of "
              + numel
              + " elements (shape "
              + t.shape()
              + ")");
    }
    return Checks.sizes(op, resolved);
  }

  /**
   * Strides that let memory with {@code oldSizes}/{@code oldStrides} be seen with {@code newSizes},
   * or null if no view is possible (PyTorch's computeStride).
   */
  private static int[] viewStrides(int[] oldSizes, int[] oldStrides, int[] newSizes) {
    int[] newStrides = new int[newSizes.length];
    int numel = 1;
    for (int s : oldSizes) {
      numel *= s;
    }
    if (numel == 0) {
      return Strided.contiguousStrides(newSizes);
    }
    if (oldSizes.length == 0) {
      Arrays.fill(newStrides, 1);
      return newStrides;
    }
    int viewD = newSizes.length - 1;
    long chunkBase = oldStrides.length == 0 ? 1 : oldStrides[oldStrides.length - 1];
    long tensorNumel = 1;
    long viewNumel = 1;
    for (int d = oldSizes.length - 1; d >= 0; d--) {
      tensorNumel *= oldSizes[d];
      if (d == 0 || (oldSizes[d - 1] != 1 && oldStrides[d - 1] != tensorNumel * chunkBase)) {
        while (viewD >= 0 && (viewNumel < tensorNumel || newSizes[viewD] == 1)) {
          newStrides[viewD] = (int) (viewNumel * chunkBase);
          viewNumel *= newSizes[viewD];
          viewD--;
        }
        if (viewNumel != tensorNumel) {
          return null;
        }
        if (d > 0) {
          chunkBase = oldStrides[d - 1];
          tensorNumel = 1;
          viewNumel = 1;
        }
      }
    }
    if (viewD != -1) {
      return null;
    }
    return newStrides;
  }

  static Tensor view(Tensor t, long[] shape) {
    int[] sizes = inferSizes("view", t, shape);
    int[] strides = viewStrides(t.data.sizes(), t.data.strides(), sizes);
    if (strides == null) {
      throw new IllegalArgumentException(
          "view: shape "
              + Arrays.toString(shape)
              + " is not compatible with the"
              + " strides of the input (shape "
              + t.shape()
              + ", strides "
              + Arrays.toString(t.strides())
              + "); use reshape, which copies when it must");
    }
    return reshapeView(t, sizes, strides);
  }

  private static Tensor reshapeView(Tensor t, int[] sizes, int[] strides) {
    long[] original = t.shape().toArray();
    return view(
        "view",
        t,
        t.data.offset(),
        sizes,
        strides,
        (g, needs) -> new Tensor[] {g.reshape(original)});
  }

  static Tensor reshape(Tensor t, long[] shape) {
    int[] sizes = inferSizes("reshape", t, shape);
    int[] strides = viewStrides(t.data.sizes(), t.data.strides(), sizes);
    if (strides != null) {
      return reshapeView(t, sizes, strides);
    }
    Tensor c = copy(t, "reshape");
    return reshapeView(c, sizes, Strided.contiguousStrides(sizes));
  }

  static Tensor flatten(Tensor t, int start, int end) {
    if (t.dim() == 0) {
      return t.reshape(1);
    }
    int s = Checks.dim("flatten", start, t.dim());
    int e = Checks.dim("flatten", end, t.dim());
    if (s > e) {
      throw new IllegalArgumentException(
          "flatten: start dimension " + start + " comes after end dimension " + end);
    }
    long[] sizes = t.shape().toArray();
    long[] out = new long[sizes.length - (e - s)];
    int j = 0;
    for (int i = 0; i < sizes.length; i++) {
      if (i <= s || i > e) {
        out[j++] = sizes[i];
      } else {
        out[j - 1] *= sizes[i];
      }
    }
    return t.reshape(out);
  }

  static Tensor transpose(Tensor t, int d0, int d1) {
    int rank = t.dim();
    if (rank == 0) {
      Checks.dim("transpose", d0, 0);
      Checks.dim("transpose", d1, 0);
      return t;
    }
    int a = Checks.dim("transpose", d0, rank);
    int b = Checks.dim("transpose", d1, rank);
    int[] order = new int[rank];
    for (int i = 0; i < rank; i++) {
      order[i] = i;
    }
    order[a] = b;
    order[b] = a;
    return permute(t, order);
  }

  static Tensor t(Tensor t) {
    if (t.dim() > 2) {
      throw new IllegalArgumentException(
          "t: expects a tensor with at most 2 dimensions, got "
              + t.dim()
              + " (shape "
              + t.shape()
              + "); use transpose(d0, d1)");
    }
    return t.dim() < 2 ? t : transpose(t, 0, 1);
  }

  static Tensor permute(Tensor t, int[] order) {
    int rank = t.dim();
    if (order.length != rank) {
      throw new IllegalArgumentException(
          "permute: "
              + order.length
              + " dimensions given for a tensor of rank "
              + rank
              + " (shape "
              + t.shape()
              + ")");
    }
    int[] perm = new int[rank];
    boolean[] seen = new boolean[rank];
    for (int i = 0; i < rank; i++) {
      perm[i] = Checks.dim("permute", order[i], rank);
      if (seen[perm[i]]) {
        throw new IllegalArgumentException(
            "permute: dimension " + perm[i] + " repeats in " + Arrays.toString(order));
      }
      seen[perm[i]] = true;
    }
    int[] sizes = new int[rank];
    int[] strides = new int[rank];
    int[] inverse = new int[rank];
    for (int i = 0; i < rank; i++) {
      sizes[i] = t.data.size(perm[i]);
      strides[i] = t.data.stride(perm[i]);
      inverse[perm[i]] = i;
    }
    return view(
        "permute",
        t,
        t.data.offset(),
        sizes,
        strides,
        (g, needs) -> new Tensor[] {g.permute(inverse)});
  }

  /**
   * The gradient of a view that picks part of {@code input}: zeros with {@code g} written into the
   * part.
   */
  private static Tensor scatterIntoZeros(
      Tensor input, Tensor g, int offset, int[] sizes, int[] strides) {
    Tensor z = Tensor.zeros(input.shape(), g.dtype(), g.device());
    int base = z.data.offset();
    z.data.storage().backend().copy(g.data, z.data.withLayout(base + offset, sizes, strides));
    return z;
  }

  static Tensor slice(Tensor t, int dim, long start, long end, long step) {
    if (t.dim() == 0) {
      throw new IndexOutOfBoundsException("slice: cannot slice a 0-dim tensor");
    }
    int d = Checks.dim("slice", dim, t.dim());
    if (step <= 0) {
      throw new IllegalArgumentException("slice: step must be positive, got " + step);
    }
    long size = t.data.size(d);
    long s = clampBound(start, size);
    long e = Math.max(s, clampBound(end, size));
    int count = (int) ((e - s + step - 1) / step);
    return part("slice", t, d, (int) s, count, (int) step);
  }

  private static long clampBound(long bound, long size) {
    long b = bound < 0 ? bound + size : bound;
    return Math.max(0, Math.min(size, b));
  }

  static Tensor narrow(Tensor t, int dim, long start, long length) {
    if (t.dim() == 0) {
      throw new IndexOutOfBoundsException("narrow: cannot narrow a 0-dim tensor");
    }
    int d = Checks.dim("narrow", dim, t.dim());
    long size = t.data.size(d);
    long s = start < 0 ? start + size : start;
    if (s < 0 || length < 0 || s + length > size) {
      throw new IndexOutOfBoundsException(
          "narrow: start "
              + start
              + " and length "
              + length
              + " exceed dimension "
              + dim
              + " of size "
              + size
              + " (shape "
              + t.shape()
              + ")");
    }
    return part("narrow", t, d, (int) s, (int) length, 1);
  }

  private static Tensor part(String op, Tensor t, int d, int start, int count, int step) {
    int[] sizes = t.data.sizes().clone();
    int[] strides = t.data.strides().clone();
    int offset = t.data.offset() + start * strides[d];
    sizes[d] = count;
    strides[d] *= step;
    int[] partStrides = Strided.contiguousStrides(t.data.sizes());
    int relative = start * partStrides[d];
    partStrides[d] *= step;
    return view(
        op,
        t,
        offset,
        sizes,
        strides,
        (g, needs) -> new Tensor[] {scatterIntoZeros(t, g, relative, sizes, partStrides)});
  }

  static Tensor select(Tensor t, int dim, long index) {
    if (t.dim() == 0) {
      throw new IndexOutOfBoundsException("select: cannot index a 0-dim tensor");
    }
    int d = Checks.dim("select", dim, t.dim());
    long size = t.data.size(d);
    long i = index < 0 ? index + size : index;
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException(
          "select: index "
              + index
              + " is out of range for dimension "
              + dim
              + " with size "
              + size
              + " (shape "
              + t.shape()
              + ")");
    }
    int rank = t.dim();
    int[] sizes = new int[rank - 1];
    int[] strides = new int[rank - 1];
    for (int k = 0, j = 0; k < rank; k++) {
      if (k != d) {
        sizes[j] = t.data.size(k);
        strides[j++] = t.data.stride(k);
      }
    }
    int offset = t.data.offset() + (int) i * t.data.stride(d);
    int[] contiguous = Strided.contiguousStrides(t.data.sizes());
    int relative = (int) i * contiguous[d];
    int[] partStrides = new int[rank - 1];
    for (int k = 0, j = 0; k < rank; k++) {
      if (k != d) {
        partStrides[j++] = contiguous[k];
      }
    }
    return view(
        "select",
        t,
        offset,
        sizes,
        strides,
        (g, needs) -> new Tensor[] {scatterIntoZeros(t, g, relative, sizes, partStrides)});
  }

  static Tensor squeeze(Tensor t, Integer dim) {
    int rank = t.dim();
    boolean[] drop = new boolean[rank];
    if (dim == null) {
      for (int i = 0; i < rank; i++) {
        drop[i] = t.data.size(i) == 1;
      }
    } else if (rank > 0) {
      int d = Checks.dim("squeeze", dim, rank);
      drop[d] = t.data.size(d) == 1;
    } else {
      Checks.dim("squeeze", dim, 0);
    }
    int kept = 0;
    for (boolean b : drop) {
      kept += b ? 0 : 1;
    }
    int[] sizes = new int[kept];
    int[] strides = new int[kept];
    for (int i = 0, j = 0; i < rank; i++) {
      if (!drop[i]) {
        sizes[j] = t.data.size(i);
        strides[j++] = t.data.stride(i);
      }
    }
    long[] original = t.shape().toArray();
    return view(
        "squeeze",
        t,
        t.data.offset(),
        sizes,
        strides,
        (g, needs) -> new Tensor[] {g.reshape(original)});
  }

  static Tensor unsqueeze(Tensor t, int dim) {
    int rank = t.dim();
    int d = Checks.dim("unsqueeze", dim, rank + 1);
    int[] sizes = new int[rank + 1];
    int[] strides = new int[rank + 1];
    for (int i = 0, j = 0; i <= rank; i++) {
      if (i == d) {
        sizes[i] = 1;
        strides[i] = j < rank ? t.data.stride(j) * t.data.size(j) : 1;
      } else {
        sizes[i] = t.data.size(j);
        strides[i] = t.data.stride(j++);
      }
    }
    long[] original = t.shape().toArray();
    return view(
        "unsqueeze",
        t,
        t.data.offset(),
        sizes,
        strides,
        (g, needs) -> new Tensor[] {g.reshape(original)});
  }

  static Tensor expand(Tensor t, long[] shape) {
    int rank = t.dim();
    if (shape.length < rank) {
      throw new IllegalArgumentException(
          "expand: the target shape "
              + Arrays.toString(shape)
              + " has fewer"
              + " dimensions than the tensor's shape "
              + t.shape());
    }
    int lead = shape.length - rank;
    long[] resolved = shape.clone();
    for (int i = 0; i < shape.length; i++) {
      int j = i - lead;
      if (shape[i] == -1) {
        if (j < 0) {
          throw new IllegalArgumentException(
              "expand: -1 is not allowed for the new leading dimension " + i);
        }
        resolved[i] = t.data.size(j);
      } else if (j >= 0 && t.data.size(j) != 1 && t.data.size(j) != shape[i]) {
        throw new IllegalArgumentException(
            "expand: size "
                + t.data.size(j)
                + " of dimension "
                + j
                + " of shape "
                + t.shape()
                + " cannot be expanded to "
                + shape[i]
                + "; only size-1 dimensions can be expanded");
      }
    }
    int[] sizes = Checks.sizes("expand", resolved);
    Strided e = expandData(t.data, sizes);
    int[] original = t.data.sizes().clone();
    return view(
        "expand",
        t,
        e.offset(),
        sizes,
        e.strides(),
        (g, needs) -> new Tensor[] {sumToShape(g, original)});
  }

  /** A contiguous copy; differentiable. */
  static Tensor copy(Tensor t, String op) {
    Tensor out = Creation.empty(t.data.sizes().clone(), t.dtype(), t.device());
    t.data.storage().backend().copy(t.data, out.data);
    return Node.record(op, out, new Tensor[] {t}, (g, needs) -> new Tensor[] {g});
  }

  static Tensor cat(List<Tensor> tensors, int dim) {
    Checks.noNulls("cat", tensors);
    if (tensors.isEmpty()) {
      throw new IllegalArgumentException("cat: expected a non-empty list of tensors");
    }
    Checks.sameDevice("cat", "tensors", tensors);
    Tensor first = tensors.get(0);
    int rank = first.dim();
    if (rank == 0) {
      throw new IllegalArgumentException("cat: 0-dim tensors cannot be concatenated; use stack");
    }
    int d = Checks.dim("cat", dim, rank);
    DType dtype = first.dtype();
    int total = 0;
    for (int k = 0; k < tensors.size(); k++) {
      Tensor t = tensors.get(k);
      if (t.dim() != rank) {
        throw new IllegalArgumentException(
            "cat: tensor "
                + k
                + " has shape "
                + t.shape()
                + " but tensor 0 has "
                + first.shape()
                + "; all need the same number of dimensions");
      }
      for (int i = 0; i < rank; i++) {
        if (i != d && t.data.size(i) != first.data.size(i)) {
          throw new IllegalArgumentException(
              "cat: tensor "
                  + k
                  + " has shape "
                  + t.shape()
                  + " but tensor 0 has "
                  + first.shape()
                  + "; sizes must match except in dimension "
                  + d);
        }
      }
      dtype = DType.promote(dtype, t.dtype());
      total += t.data.size(d);
    }
    int[] sizes = first.data.sizes().clone();
    sizes[d] = total;
    Tensor out = Creation.empty(sizes, dtype, first.device());
    int[] outStrides = out.data.strides();
    int at = 0;
    int[] starts = new int[tensors.size()];
    Tensor[] inputs = new Tensor[tensors.size()];
    for (int k = 0; k < tensors.size(); k++) {
      Tensor t = tensors.get(k).to(dtype);
      inputs[k] = t;
      starts[k] = at;
      int[] partSizes = t.data.sizes().clone();
      out.data
          .storage()
          .backend()
          .copy(t.data, out.data.withLayout(at * outStrides[d], partSizes, outStrides));
      at += t.data.size(d);
    }
    if (!dtype.isFloatingPoint()) {
      return out;
    }
    return Node.record(
        "cat",
        out,
        inputs,
        (g, needs) -> {
          Tensor[] grads = new Tensor[inputs.length];
          for (int k = 0; k < inputs.length; k++) {
            grads[k] = needs[k] ? g.narrow(d, starts[k], inputs[k].data.size(d)) : null;
          }
          return grads;
        });
  }

  static Tensor stack(List<Tensor> tensors, int dim) {
    Checks.noNulls("stack", tensors);
    if (tensors.isEmpty()) {
      throw new IllegalArgumentException("stack: expected a non-empty list of tensors");
    }
    Shape shape = tensors.get(0).shape();
    int d = Checks.dim("stack", dim, shape.rank() + 1);
    List<Tensor> expanded = new ArrayList<>();
    for (int k = 0; k < tensors.size(); k++) {
      if (!tensors.get(k).shape().equals(shape)) {
        throw new IllegalArgumentException(
            "stack: tensor "
                + k
                + " has shape "
                + tensors.get(k).shape()
                + " but tensor 0 has "
                + shape
                + "; all must have the same shape");
      }
      expanded.add(tensors.get(k).unsqueeze(d));
    }
    return cat(expanded, d);
  }
}
