package dev.ondevice.processor.analysis;

import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;

/**
 * A tensor operand of an op, a model call or a contract, as the interpreter saw it: its value,
 * where it is written, and how a message names it. Immutable; its source text is read only when a
 * message needs it, as most operands are never reported.
 */
final class Operand {
  /** What an operand is to its op. */
  enum Role {
    OPERAND,
    /** The receiver of an in-place op: the result is written where it is. */
    IN_PLACE_RECEIVER,
    /** One of a list of tensors joined into one ({@code Tensor.cat(List.of(a, b), 0)}). */
    JOINED,
    /**
     * A tensor put earlier into a container that the op joins ({@code parts.add(x)}, then {@code
     * Tensor.stack(parts)}): its path is where it was put.
     */
    HELD
  }

  final Value value;
  final TreePath path;

  /**
   * The parameter the operand is passed as (a name, read only for messages), "self" or "the model".
   */
  final CharSequence argument;

  /** The tree that names the operand in a message; null for {@code this}. */
  final Tree named;

  final Role role;

  /**
   * Why the operand must be on the device it is compared with, where that is not plain; or null.
   */
  final String note;

  Operand(Value value, TreePath path, Tree named, CharSequence argument, Role role, String note) {
    this.value = value;
    this.path = path;
    this.named = named;
    this.argument = argument;
    this.role = role;
    this.note = note;
  }

  Operand(Value value, TreePath path, Tree named, CharSequence argument) {
    this(value, path, named, argument, Role.OPERAND, null);
  }

  /**
   * The operand as written, shortened for a message; {@code this} for the receiver of a model's own
   * call.
   */
  String text(AnalysisContext ctx) {
    return named == null ? "this" : ctx.shortText(named);
  }

  /**
   * A 0-dim CPU value, which may stand beside tensors on a device as PyTorch allows for the
   * operands of an op: not as the receiver of an in-place op, whose result stays on its device, nor
   * as one of the tensors {@code cat} and {@code stack} join.
   */
  boolean cpuScalar() {
    return role == Role.OPERAND && value.zeroDim() && Place.CPU.equals(value.place());
  }

  /** Whether the operand is on the CPU. */
  boolean onCpu() {
    return Place.CPU.equals(value.place());
  }
}
