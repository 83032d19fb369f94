package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.Strided;
import org.bytedeco.dnnl.memory;
import org.bytedeco.dnnl.reorder;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * One float32 operand of a oneDNN primitive: the tensor's memory in its plain layout, bound to a
 * tensor at each call, and, when the primitive chose another layout (a blocked one such as {@code
 * nChw16c}), a memory of that layout, bound to scratch at each call, and the reorder between the
 * two. Made once per primitive and reused at every call.
 */
final class DnnlOperand {
  private final memory plain;
  private final memory inner;
  private final reorder conversion;
  private final boolean input;

  private DnnlOperand(Dnnl dnnl, memory.desc plainDesc, memory.desc innerDesc, boolean input) {
    this.input = input;
    this.plain = new memory(plainDesc, dnnl.cpu, (Pointer) null);
    if (plainDesc.equals(innerDesc)) {
      this.inner = plain;
      this.conversion = null;
    } else {
      this.inner = new memory(innerDesc, dnnl.cpu, (Pointer) null);
      this.conversion = input ? new reorder(plain, inner) : new reorder(inner, plain);
    }
  }

  /** An operand the primitive reads, given as {@code plainDesc}, read as {@code innerDesc}. */
  static DnnlOperand input(Dnnl dnnl, memory.desc plainDesc, memory.desc innerDesc) {
    return new DnnlOperand(dnnl, plainDesc, innerDesc, true);
  }

  /** An operand the primitive writes as {@code innerDesc}, wanted as {@code plainDesc}. */
  static DnnlOperand output(Dnnl dnnl, memory.desc plainDesc, memory.desc innerDesc) {
    return new DnnlOperand(dnnl, plainDesc, innerDesc, false);
  }

  /** The layout the primitive reads or writes. */
  memory.desc innerDesc() {
    return inner.get_desc();
  }

  /** The memory the primitive's argument map names. */
  memory arg() {
    return inner;
  }

  /**
   * Binds the plain memory to {@code tensor} (float32, laid out as the plain description says) and,
   * for an operand in another layout, that layout's memory to {@code scratch}, reordering an input
   * into it.
   */
  void bind(Strided tensor, Dnnl dnnl, DnnlScratch scratch) {
    // A void* argument: JavaCPP adds the position in bytes.
    bind(
        new BytePointer(tensor.host().bytes()).position((long) tensor.offset() * Float.BYTES),
        dnnl,
        scratch);
  }

  /** Binds the plain memory to {@code data}, as {@link #bind(Strided, Dnnl, DnnlScratch)} does. */
  void bind(Pointer data, Dnnl dnnl, DnnlScratch scratch) {
    plain.set_data_handle(data);
    if (conversion != null) {
      inner.set_data_handle(scratch.take(inner.get_desc().get_size()));
      if (input) {
        conversion.execute(dnnl.queue, plain, inner);
      }
    }
  }

  /** For an output in another layout, reorders the primitive's result into the bound tensor. */
  void store(Dnnl dnnl) {
    if (!input && conversion != null) {
      conversion.execute(dnnl.queue, inner, plain);
    }
  }
}
