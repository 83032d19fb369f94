package dev.ondevice.processor.analysis;

import com.sun.source.util.TreePath;

/**
 * Two operands of one op, model call or loss that are on different devices, or may be: a fact the
 * interpreter found, with what put the CPU operand there ({@link Culprit}), which decides the check
 * that reports it.
 *
 * @param op the op's name, for messages
 * @param at the op
 * @param a the first operand (the model, for a model call)
 * @param b the second operand
 * @param level certain, or possible only (devices that may differ at run time)
 * @param modelCall whether the op is a call of a model
 * @param cpu the operand on the CPU, or null where neither is
 * @param culprit what put {@code cpu} there
 */
record DeviceConflict(
    CharSequence op,
    TreePath at,
    Operand a,
    Operand b,
    Place.Conflict level,
    boolean modelCall,
    Operand cpu,
    Culprit culprit) {

  /** What put the CPU operand of a conflict on the CPU. */
  enum Culprit {
    /** A part of the model replaced by one made on the CPU after the model moved. */
    REPLACED_PART,
    /** A model that was never moved. */
    UNMOVED_MODEL,
    /** A factory without a device in a model's code. */
    DEFAULT_DEVICE_FACTORY,
    /** A static tensor constant. */
    STATIC_CONSTANT,
    /** A tensor pinned to the CPU with {@code @OnDevice("cpu")}. */
    PINNED,
    /** A batch's tensor never moved. */
    BATCH,
    /** Anything else, or nothing known. */
    OTHER
  }

  /**
   * The operand on a device: the other one than {@link #cpu}, or {@code a} where neither is on the
   * CPU.
   */
  Operand device() {
    return cpu == a ? b : a;
  }

  /** Whether the devices may differ only at run time. */
  boolean possible() {
    return level == Place.Conflict.POSSIBLE;
  }
}
