package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;

/**
 * pytorch-transformers 0.7 XLNet relative attention: {@code rel_attn_core} scores the query against
 * the relative position embeddings ({@code bd}) and realigns them with the static helper {@code
 * rel_shift}, which drops the first row and keeps the first {@code klen} columns with {@code
 * torch.index_select}.
 *
 * <p>Source: https://github.com/huggingface/transformers/issues/769
 *
 * <p>Bug: {@code rel_shift} selects with {@code torch.index_select(x, 1, torch.arange(klen))}: the
 * index is made on the CPU while the scores are on the GPU ("Expected object of backend CUDA but got
 * backend CPU for argument #3 'index'"); fixed with {@code torch.arange(klen).to(x.device)}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class XlnetRelShiftArangeOnCpu {
  private XlnetRelShiftArangeOnCpu() {}

  /** XLNetRelativeAttention reduced to one head and one sequence (the einsums become matmuls). */
  static final class XlnetRelativeAttention extends Model {
    final int dHead;
    final Linear q = new Linear(16, 16, false, Device.cpu());
    final Linear k = new Linear(16, 16, false, Device.cpu());
    final Linear v = new Linear(16, 16, false, Device.cpu());
    final Linear r = new Linear(16, 16, false, Device.cpu());
    final Linear o = new Linear(16, 16, false, Device.cpu());
    final Parameter rRBias = new Parameter(Tensor.zeros(Shape.of(16)));
    final Parameter rWBias = new Parameter(Tensor.zeros(Shape.of(16)));

    XlnetRelativeAttention(int dHead) {
      this.dHead = dHead;
    }

    /** rel_shift: x is [qlen, rlen]; returns [qlen, klen]. */
    static Tensor relShift(Tensor x, long klen) {
      long qlen = x.size(0);
      long rlen = x.size(1);
      x = x.reshape(rlen, qlen);
      x = x.slice(0, 1, rlen);
      x = x.reshape(qlen, rlen - 1);
      x = x.indexSelect(1, Tensor.arange(klen)); // bug: in-method
      return x;
    }

    Tensor relAttnCore(Tensor qHead, Tensor kHeadH, Tensor vHeadH, Tensor kHeadR) {
      Tensor ac = qHead.add(rWBias).matmul(kHeadH.t());
      Tensor bd = qHead.add(rRBias).matmul(kHeadR.t());
      bd = relShift(bd, ac.size(1));
      Tensor attnScore = ac.add(bd).mul(1.0 / Math.sqrt(dHead));
      Tensor attnProb = attnScore.softmax(1);
      return attnProb.matmul(vHeadH);
    }

    Tensor forward(Tensor h, Tensor posEmb) {
      Tensor qHead = q.forward(h);
      Tensor kHeadH = k.forward(h);
      Tensor vHeadH = v.forward(h);
      Tensor kHeadR = r.forward(posEmb);
      Tensor attnVec = relAttnCore(qHead, kHeadH, vHeadH, kHeadR);
      return o.forward(attnVec).add(h);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    XlnetRelativeAttention attention = new XlnetRelativeAttention(16);
    attention.toDevice(device);
    int qlen = 6;
    Tensor h = Tensor.randn(qlen, 16, device);
    Tensor posEmb = Tensor.randn(2 * qlen, 16, device);    // klen + qlen relative positions
    Tensor out = attention.forward(h, posEmb);
    System.out.println(out.shape());
  }
}
