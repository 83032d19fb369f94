package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * LCCNet's validation step {@code val(model, rgb_img, refl_img, target_transl, target_rot,
 * loss_fn, ...)}: runs the calibration network on a batch, computes the losses, and sums the
 * translation error of the batch (in cm) and the rotation error (in degrees) for the epoch report.
 *
 * <p>Source: https://github.com/IIPCVLAB/LCCNet/pull/4
 *
 * <p>Bug: {@code total_trasl_error = torch.tensor(0.0)} is created on the CPU and updated in place
 * with {@code torch.norm(target_transl[j] - transl_err[j]) * 100.}, a CUDA value: the in-place add
 * fails (the PR: "total_trasl_error and target_transl (transl_err) are on different devices").
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class LccnetValTranslationError {
  private LccnetValTranslationError() {}

  /** A stand-in for LCCNet: regresses a translation and a unit quaternion from both images. */
  static final class Lccnet extends Model {
    final Linear fc = new Linear(2 * 3 * 4 * 4, 7);

    Tensor[] forward(Tensor rgbImg, Tensor reflImg) {
      Tensor x = Tensor.cat(List.of(rgbImg.flatten(1), reflImg.flatten(1)), 1);
      Tensor out = fc.forward(x);
      Tensor transl = out.narrow(1, 0, 3);
      Tensor rot = out.narrow(1, 3, 4);
      rot = rot.div(rot.square().sum(1, true).sqrt());
      return new Tensor[] {transl, rot};
    }
  }

  /** {@code quaternion_distance(q, r, device)}: the rotation angle between two unit quaternions. */
  static Tensor quaternionDistance(Tensor q, Tensor r) {
    Tensor dot = q.mul(r).sum(1).abs().clamp(0, 1);
    return dot.square().rsub(1).sqrt().mul(2);
  }

  /** {@code DistancePoints3D}-free loss: translation and rotation terms, as {@code ProposedLoss}. */
  static Map<String, Tensor> lossFn(Tensor targetTransl, Tensor targetRot, Tensor translErr, Tensor rotErr) {
    Map<String, Tensor> losses = new LinkedHashMap<>();
    losses.put("transl_loss", translErr.sub(targetTransl).abs().mean());
    losses.put("rot_loss", quaternionDistance(targetRot, rotErr).mean());
    losses.put("total_loss", losses.get("transl_loss").add(losses.get("rot_loss")));
    return losses;
  }

  static Object[] val(Lccnet model, Tensor rgbImg, Tensor reflImg, Tensor targetTransl, Tensor targetRot) {
    model.eval();
    Tensor[] out;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      out = model.forward(rgbImg, reflImg);
    }
    Tensor translErr = out[0];
    Tensor rotErr = out[1];
    Map<String, Tensor> losses = lossFn(targetTransl, targetRot, translErr, rotErr);

    Tensor totalTraslError = Tensor.scalar(0.0); // bug: in-method
    Tensor totalRotError = quaternionDistance(targetRot, rotErr);
    totalRotError = totalRotError.mul(180.0 / Math.PI);
    for (int j = 0; j < rgbImg.size(0); j++) {
      totalTraslError.addi(targetTransl.select(0, j).sub(translErr.select(0, j)).square().sum().sqrt().mul(100.0)); // same bug
    }
    return new Object[] {losses, totalTraslError.item(), totalRotError.sum().item(), rotErr, translErr}; // costs time: HostSyncInLoop
  }

  /** One batch from the data loader, on the CPU: ground-truth pose errors and the two images. */
  static Map<String, Tensor> loadSample() {
    Map<String, Tensor> sample = new LinkedHashMap<>();
    sample.put("tr_error", Tensor.randn(2, 3));
    Tensor rot = Tensor.randn(2, 4);
    sample.put("rot_error", rot.div(rot.square().sum(1, true).sqrt()));
    sample.put("rgb", Tensor.randn(2, 3, 4, 4));
    sample.put("depth", Tensor.randn(2, 3, 4, 4));
    return sample;
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Lccnet model = new Lccnet();
    model.toDevice(device);
    double totalValT = 0;
    for (int batch = 0; batch < 2; batch++) {
      Map<String, Tensor> sample = loadSample();
      sample.put("tr_error", sample.get("tr_error").to(device));
      sample.put("rot_error", sample.get("rot_error").to(device));
      Tensor rgbInput = sample.get("rgb").to(device);
      Tensor lidarInput = sample.get("depth").to(device);
      Object[] result = val(model, rgbInput, lidarInput, sample.get("tr_error"), sample.get("rot_error"));
      totalValT += (Double) result[1];
    }
    System.out.println("total traslation error: " + totalValT + " cm");
  }
}
