package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;

/**
 * torchsurv: a Cox proportional-hazards network trained with {@code neg_partial_log_likelihood},
 * evaluated each epoch with the concordance index weighted by the inverse probability of censoring
 * weights of {@code torchsurv.stats.ipcw.get_ipcw}, which fits a {@code KaplanMeierEstimator} of the
 * censoring distribution and predicts it at the evaluation times.
 *
 * <p>Source: https://github.com/Novartis/torchsurv/issues/145 (fixed by
 * https://github.com/Novartis/torchsurv/pull/147, commit f3f882e)
 *
 * <p>Bug: {@code get_ipcw} builds {@code kaplan_meier.KaplanMeierEstimator()} without a device; the
 * estimator then defaults to the CPU, moves {@code event} and {@code time} there and returns its
 * prediction {@code ct} on the CPU, so {@code ipcw[mask] = _inverse_censoring_dist(ct[mask])} mixes
 * that CPU result with {@code ipcw = torch.zeros_like(new_time)} on the GPU. The fix passes
 * {@code device=event.device} to the estimator.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class TorchsurvIpcwKaplanMeierOnCpu {
  private TorchsurvIpcwKaplanMeierOnCpu() {}

  /**
   * {@code torchsurv.stats.kaplan_meier.KaplanMeierEstimator}; the sorted unique-time tables are
   * written as pairwise comparisons (the times here have no ties).
   */
  static final class KaplanMeierEstimator {
    final Device device;
    Tensor time;
    Tensor logFactor;

    KaplanMeierEstimator() {
      this(null);
    }

    KaplanMeierEstimator(Device device) {
      this.device = device == null ? Device.cpu() : device;
    }

    /** Fits the survival (or, with {@code censoringDist}, the censoring) distribution. */
    void call(Tensor event, Tensor time, boolean censoringDist) {
      Tensor ev = event.to(device);
      this.time = time.to(device);
      if (censoringDist) {
        ev = ev.logicalNot();
      }
      Tensor atRisk = this.time.unsqueeze(0).ge(this.time.unsqueeze(1)).to(DType.FLOAT32).sum(1);  // n at risk at t_i
      Tensor events = ev.to(DType.FLOAT32);                                                          // d_i
      Tensor factor = events.div(atRisk).rsub(1.0);
      this.logFactor = Tensor.where(factor.gt(0), factor.clampMin(1e-30).log(), Tensor.fullLike(factor, -1e30));
    }

    /** The estimate at {@code newTime}: the product of the factors of the times at or before it. */
    Tensor predict(Tensor newTime) {
      newTime = newTime.to(device);
      Tensor before = time.unsqueeze(0).le(newTime.unsqueeze(1));
      Tensor logS = Tensor.where(before, logFactor.unsqueeze(0).expand(newTime.size(0), time.size(0)),
          Tensor.zeros(Shape.of(newTime.size(0), time.size(0)), device)).sum(1);
      return logS.exp();
    }
  }

  /** {@code torchsurv.stats.ipcw}. */
  static final class Ipcw {
    static Tensor getIpcw(Tensor event, Tensor time, Tensor newTime) {
      // time on which to evaluate IPCW
      if (newTime == null) {
        newTime = time;
      }
      // fit KM censoring estimator
      KaplanMeierEstimator km = new KaplanMeierEstimator(); // bug: across-methods
      km.call(event, time, true);

      // predict censoring distribution at time
      Tensor ct = km.predict(newTime);

      // calculate ipcw
      Tensor mask = ct.gt(0);
      Tensor ipcw = Tensor.zerosLike(newTime);
      ipcw = Tensor.where(mask, inverseCensoringDist(Tensor.where(mask, ct, Tensor.onesLike(ct))), ipcw); // same bug
      return ipcw;
    }

    static Tensor inverseCensoringDist(Tensor ct) {
      if (ct.eq(0.0).to(DType.FLOAT32).sum().item() > 0) { // costs time: HostSyncInLoop
        System.out.println("Censoring distribution zero at some time points. Returning ones as weight");
      }
      return Tensor.onesLike(ct).div(ct);
    }
  }

  /** {@code neg_partial_log_likelihood} (Breslow, no ties), mean over the events. */
  static Tensor negPartialLogLikelihood(Tensor logHz, Tensor event, Tensor time) {
    Tensor hz = logHz.squeeze(1);
    Tensor riskSet = time.unsqueeze(0).ge(time.unsqueeze(1)).to(DType.FLOAT32);     // [i, j]: t_j >= t_i
    Tensor logDenominator = hz.exp().unsqueeze(0).mul(riskSet).sum(1).log();
    Tensor ev = event.to(DType.FLOAT32);
    return hz.sub(logDenominator).mul(ev).sum().neg().div(ev.sum().clampMin(1));
  }

  /** {@code ConcordanceIndex} with weights: comparable pairs (t_i < t_j, event_i) weighted by w_i squared. */
  static Tensor concordanceIndex(Tensor logHz, Tensor event, Tensor time, Tensor weight) {
    Tensor hz = logHz.squeeze(1);
    Tensor comparable = time.unsqueeze(1).lt(time.unsqueeze(0)).logicalAnd(event.unsqueeze(1)).to(DType.FLOAT32);
    Tensor concordant = hz.unsqueeze(1).gt(hz.unsqueeze(0)).to(DType.FLOAT32);
    Tensor w = weight.square().unsqueeze(1);
    return comparable.mul(concordant).mul(w).sum().div(comparable.mul(w).sum());
  }

  static final class CoxNet extends Model {
    final Sequential net = new Sequential(new Linear(5, 16), new ReLU(), new Linear(16, 1));

    Tensor forward(Tensor x) {
      return net.forward(x);
    }
  }

  public static void run(Device device) {
    int n = 48;
    Tensor x = Tensor.randn(Shape.of(n, 5), device);
    Tensor time = Tensor.rand(Shape.of(n), device).mul(100).add(1);
    Tensor event = Tensor.rand(Shape.of(n), device).lt(0.7);
    Tensor xVal = Tensor.randn(Shape.of(16, 5), device);
    Tensor timeVal = Tensor.rand(Shape.of(16), device).mul(100).add(1);
    Tensor eventVal = Tensor.rand(Shape.of(16), device).lt(0.7);

    CoxNet model = new CoxNet();
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters(), 1e-2);
    for (int epoch = 0; epoch < 3; epoch++) {
      model.train();
      Tensor loss = negPartialLogLikelihood(model.forward(x), event, time);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();

      model.eval();
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        Tensor logHz = model.forward(xVal);
        Tensor weight = Ipcw.getIpcw(eventVal, timeVal, null); // same bug
        Tensor cindex = concordanceIndex(logHz, eventVal, timeVal, weight);
        System.out.printf("epoch %d: loss %.4f, weighted c-index %.4f%n", epoch, loss.item(), cindex.item()); // costs time: HostSyncInLoop
      }
    }
  }
}
