package dev.ondevice.processor.analysis;

import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.util.TreePath;

/**
 * {@link CheckId#HARD_CODED_DEVICE}: {@code x.to(Device.parse("cuda"))} in a body that moves its
 * other tensors to {@code device}: they agree only where {@code device} is that GPU (a run on
 * {@code cuda:1}, or on the CPU, mixes them).
 */
final class HardCodedDeviceCheck extends DeviceCheck {
  HardCodedDeviceCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void move(TensorMove m) {
    MethodInterpreter.Call c = m.call();
    if (m.target().kind() != Place.Kind.FIXED || !m.namesDevice() || c.receiverTree == null) {
      return;
    }
    TreePath user = c.path.getParentPath();
    while (user != null && user.getLeaf() instanceof ParenthesizedTree) {
      user = user.getParentPath();
    }
    if (user == null
        || user.getLeaf() instanceof MethodInvocationTree
        || user.getLeaf() instanceof MemberSelectTree) {
      return; // w.mul(x.to(Device.cuda(1))): the op it meets says so, as MixedDevices
    }
    String variable = HardCodedDevices.deviceVariableBeside(c.path, ctx);
    if (variable == null) {
      return;
    }
    ExpressionTree device = c.argumentTrees.get(c.semantics.deviceParameter);
    String target = m.target().describe();
    report(
        CheckId.HARD_CODED_DEVICE,
        c.path,
        ctx.shortText(c.tree)
            + " moves "
            + ctx.shortText(c.receiverTree)
            + " to "
            + target
            + ", a device written into the code, while this code moves its other tensors to "
            + variable
            + ": they meet on different devices wherever "
            + variable
            + " is not "
            + target
            + " (another GPU, or the CPU); move it to "
            + variable
            + " as well",
        false,
        Fix.replace("move it to " + variable, device, variable));
  }
}
