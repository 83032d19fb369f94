package dev.ondevice.processor.analysis;

import com.sun.source.util.TreePath;

/**
 * A tensor a caller gives a method on the CPU that meets a tensor on a device in the method's body
 * ({@code agent.act(Tensor.of(state))}, whose {@code q.forward(s)} runs on the device): the
 * caller's to move, and reported at its call ({@link CallResults}).
 *
 * @param parameter the parameter the tensor is given as
 * @param at the op in the method's body where it meets the other tensor
 * @param op the op's name
 * @param needed where the other tensor is
 * @param other the other tensor as written in the method's body
 */
record RejectedArgument(int parameter, TreePath at, CharSequence op, Place needed, String other) {}
