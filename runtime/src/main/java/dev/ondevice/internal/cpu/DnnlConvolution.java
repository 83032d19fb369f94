package dev.ondevice.internal.cpu;

import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_BIAS;
import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_DIFF_BIAS;
import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_DIFF_DST;
import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_DIFF_SRC;
import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_DIFF_WEIGHTS;
import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_DST;
import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_SRC;
import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_WEIGHTS;

import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.Window2d;
import org.bytedeco.dnnl.IntMemoryMap;
import org.bytedeco.dnnl.convolution_backward_data;
import org.bytedeco.dnnl.convolution_backward_weights;
import org.bytedeco.dnnl.convolution_forward;
import org.bytedeco.dnnl.global.dnnl.algorithm;
import org.bytedeco.dnnl.global.dnnl.prop_kind;
import org.bytedeco.dnnl.memory;
import org.bytedeco.javacpp.FloatPointer;

/**
 * oneDNN's convolution primitives for one shape, made once and run at every step: the forward pass,
 * and on first use the input's and the weight's gradients. Each primitive gets the layouts it runs
 * fastest on ({@code format_tag::any}, blocked layouts on x86); the tensors stay in the runtime's
 * NCHW and are reordered on the way in and out (see {@link DnnlOperand}). Callers hold the {@link
 * Dnnl} instance's lock.
 */
final class DnnlConvolution {
  private final Dnnl dnnl;
  private final Key key;
  private final convolution_forward.primitive_desc hint;
  private Forward forward;
  private Forward forwardWithBias;
  private BackwardData backwardData;
  private BackwardWeights backwardWeights;

  /**
   * The shape of a convolution: input {@code [n, c, h, w]}, {@code o} output channels, the window.
   */
  record Key(int n, int c, int h, int w, int o, Window2d window) {
    long[] srcDims() {
      return new long[] {n, c, h, w};
    }

    long[] weightDims() {
      return new long[] {o, c, window.kernelH(), window.kernelW()};
    }

    long[] biasDims() {
      return new long[] {o};
    }

    long[] dstDims() {
      return new long[] {n, o, window.outHeight(h), window.outWidth(w)};
    }

    long[] strides() {
      return new long[] {window.strideH(), window.strideW()};
    }

    long[] padding() {
      return new long[] {window.padH(), window.padW()};
    }

    /**
     * The padding after the last row and column that oneDNN needs to give PyTorch's output sizes
     * (which drop a partial last window).
     */
    long[] paddingAfter() {
      long bottom =
          (long) (window.outHeight(h) - 1) * window.strideH()
              + window.kernelH()
              - h
              - window.padH();
      long right =
          (long) (window.outWidth(w) - 1) * window.strideW() + window.kernelW() - w - window.padW();
      return new long[] {bottom, right};
    }
  }

  DnnlConvolution(Dnnl dnnl, Key key) {
    this.dnnl = dnnl;
    this.key = key;
    this.hint = forwardDesc(false);
  }

  /** {@code out = conv(input, weight) + bias}; {@code bias} may be null. */
  void forward(Strided input, Strided weight, Strided bias, Strided out, DnnlScratch scratch) {
    if (bias == null) {
      if (forward == null) {
        forward = new Forward(hint, false);
      }
      forward.run(input, weight, null, out, scratch);
    } else {
      if (forwardWithBias == null) {
        forwardWithBias = new Forward(forwardDesc(true), true);
      }
      forwardWithBias.run(input, weight, bias, out, scratch);
    }
  }

  /**
   * The gradients of the input, the weight and the bias from the output's, each skipped where its
   * target is null. When both primitives read the output's gradient in one layout, it is reordered
   * into it once.
   */
  void backward(
      Strided input,
      Strided weight,
      Strided gradOut,
      Strided gradInput,
      Strided gradWeight,
      Strided gradBias,
      DnnlScratch scratch) {
    DnnlOperand bound = null;
    if (gradInput != null) {
      if (backwardData == null) {
        backwardData = new BackwardData();
      }
      bound = backwardData.diffDst;
      bound.bind(gradOut, dnnl, scratch);
      backwardData.run(weight, gradInput, scratch);
    }
    if (gradWeight != null || gradBias != null) {
      if (backwardWeights == null) {
        backwardWeights = new BackwardWeights();
      }
      if (backwardWeights.diffDst != bound) {
        backwardWeights.diffDst.bind(gradOut, dnnl, scratch);
      }
      backwardWeights.run(input, gradWeight, gradBias, scratch);
    }
    dnnl.queue._wait();
  }

  /**
   * The operand for the output's gradient read as {@code inner}: the other backward primitive's
   * where it reads the same layout, else a new one.
   */
  private DnnlOperand diffDst(DnnlOperand other, memory.desc inner) {
    return other != null && other.innerDesc().equals(inner)
        ? other
        : DnnlOperand.input(dnnl, nchw(key.dstDims()), inner);
  }

  /** The forward primitive, with or without a bias, and its operands. */
  private final class Forward {
    private final convolution_forward primitive;
    private final DnnlOperand src;
    private final DnnlOperand weights;
    private final DnnlOperand bias;
    private final DnnlOperand dst;
    private final IntMemoryMap args = new IntMemoryMap();

    Forward(convolution_forward.primitive_desc pd, boolean withBias) {
      primitive = new convolution_forward(pd);
      src = DnnlOperand.input(dnnl, nchw(key.srcDims()), pd.src_desc());
      weights = DnnlOperand.input(dnnl, oihw(key.weightDims()), pd.weights_desc());
      dst = DnnlOperand.output(dnnl, nchw(key.dstDims()), pd.dst_desc());
      args.put(DNNL_ARG_SRC, src.arg());
      args.put(DNNL_ARG_WEIGHTS, weights.arg());
      args.put(DNNL_ARG_DST, dst.arg());
      if (withBias) {
        bias = DnnlOperand.input(dnnl, vector(key.biasDims()), pd.bias_desc());
        args.put(DNNL_ARG_BIAS, bias.arg());
      } else {
        bias = null;
      }
    }

    void run(Strided input, Strided weight, Strided b, Strided out, DnnlScratch scratch) {
      src.bind(input, dnnl, scratch);
      weights.bind(weight, dnnl, scratch);
      if (bias != null) {
        bias.bind(b, dnnl, scratch);
      }
      dst.bind(out, dnnl, scratch);
      primitive.execute(dnnl.queue, args);
      dst.store(dnnl);
      dnnl.queue._wait();
    }
  }

  /** The input's gradient primitive and its operands. */
  private final class BackwardData {
    private final convolution_backward_data primitive;
    private final DnnlOperand diffDst;
    private final DnnlOperand weight;
    private final DnnlOperand diffSrc;
    private final IntMemoryMap args = new IntMemoryMap();

    BackwardData() {
      convolution_backward_data.primitive_desc pd =
          new convolution_backward_data.primitive_desc(
              dnnl.cpu,
              algorithm.convolution_direct,
              any(key.srcDims()),
              any(key.weightDims()),
              any(key.dstDims()),
              key.strides(),
              key.padding(),
              key.paddingAfter(),
              hint);
      primitive = new convolution_backward_data(pd);
      diffDst =
          diffDst(backwardWeights == null ? null : backwardWeights.diffDst, pd.diff_dst_desc());
      weight = DnnlOperand.input(dnnl, oihw(key.weightDims()), pd.weights_desc());
      diffSrc = DnnlOperand.output(dnnl, nchw(key.srcDims()), pd.diff_src_desc());
      args.put(DNNL_ARG_DIFF_DST, diffDst.arg());
      args.put(DNNL_ARG_WEIGHTS, weight.arg());
      args.put(DNNL_ARG_DIFF_SRC, diffSrc.arg());
    }

    /** Runs on the output's gradient already bound to {@link #diffDst}. */
    void run(Strided w, Strided gradInput, DnnlScratch scratch) {
      weight.bind(w, dnnl, scratch);
      diffSrc.bind(gradInput, dnnl, scratch);
      primitive.execute(dnnl.queue, args);
      diffSrc.store(dnnl);
    }
  }

  /**
   * The weight's and bias's gradient primitive and its operands. A gradient that is not wanted (the
   * bias's without a bias, or the weight's when only the bias needs one) goes to memory of this
   * object's.
   */
  private final class BackwardWeights {
    private final convolution_backward_weights primitive;
    private final DnnlOperand source;
    private final DnnlOperand diffDst;
    private final DnnlOperand diffWeights;
    private final DnnlOperand diffBias;
    private final FloatPointer unusedBiasGradient = new FloatPointer(key.o);
    private FloatPointer unusedWeightGradient;
    private final IntMemoryMap args = new IntMemoryMap();

    BackwardWeights() {
      memory.desc biasDesc = vector(key.biasDims());
      convolution_backward_weights.primitive_desc pd =
          new convolution_backward_weights.primitive_desc(
              dnnl.cpu,
              algorithm.convolution_direct,
              any(key.srcDims()),
              any(key.weightDims()),
              biasDesc,
              any(key.dstDims()),
              key.strides(),
              key.padding(),
              key.paddingAfter(),
              hint);
      primitive = new convolution_backward_weights(pd);
      source = DnnlOperand.input(dnnl, nchw(key.srcDims()), pd.src_desc());
      diffDst = diffDst(backwardData == null ? null : backwardData.diffDst, pd.diff_dst_desc());
      diffWeights = DnnlOperand.output(dnnl, oihw(key.weightDims()), pd.diff_weights_desc());
      diffBias = DnnlOperand.output(dnnl, biasDesc, pd.diff_bias_desc());
      args.put(DNNL_ARG_SRC, source.arg());
      args.put(DNNL_ARG_DIFF_DST, diffDst.arg());
      args.put(DNNL_ARG_DIFF_WEIGHTS, diffWeights.arg());
      args.put(DNNL_ARG_DIFF_BIAS, diffBias.arg());
    }

    /** Runs on the output's gradient already bound to {@link #diffDst}. */
    void run(Strided input, Strided gradWeight, Strided gradBias, DnnlScratch scratch) {
      source.bind(input, dnnl, scratch);
      if (gradWeight != null) {
        diffWeights.bind(gradWeight, dnnl, scratch);
      } else {
        if (unusedWeightGradient == null) {
          unusedWeightGradient =
              new FloatPointer((long) key.o * key.c * key.window.kernelH() * key.window.kernelW());
        }
        diffWeights.bind(unusedWeightGradient, dnnl, scratch);
      }
      if (gradBias != null) {
        diffBias.bind(gradBias, dnnl, scratch);
      } else {
        diffBias.bind(unusedBiasGradient, dnnl, scratch);
      }
      primitive.execute(dnnl.queue, args);
      diffWeights.store(dnnl);
      diffBias.store(dnnl);
    }
  }

  /** The forward pass's description, with layouts left to oneDNN. */
  private convolution_forward.primitive_desc forwardDesc(boolean withBias) {
    return withBias
        ? new convolution_forward.primitive_desc(
            dnnl.cpu,
            prop_kind.forward_training,
            algorithm.convolution_direct,
            any(key.srcDims()),
            any(key.weightDims()),
            vector(key.biasDims()),
            any(key.dstDims()),
            key.strides(),
            key.padding(),
            key.paddingAfter())
        : new convolution_forward.primitive_desc(
            dnnl.cpu,
            prop_kind.forward_training,
            algorithm.convolution_direct,
            any(key.srcDims()),
            any(key.weightDims()),
            any(key.dstDims()),
            key.strides(),
            key.padding(),
            key.paddingAfter());
  }

  private static memory.desc vector(long[] dims) {
    return plain(dims, memory.format_tag.x);
  }

  private static memory.desc any(long[] dims) {
    return plain(dims, memory.format_tag.any);
  }

  private static memory.desc nchw(long[] dims) {
    return plain(dims, memory.format_tag.nchw);
  }

  private static memory.desc oihw(long[] dims) {
    return plain(dims, memory.format_tag.oihw);
  }

  private static memory.desc plain(long[] dims, memory.format_tag tag) {
    return new memory.desc(dims, memory.data_type.f32, tag);
  }
}
