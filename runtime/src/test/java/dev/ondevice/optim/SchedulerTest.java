package dev.ondevice.optim;

import static dev.ondevice.optim.OptimFixtures.assertClose;
import static dev.ondevice.optim.OptimFixtures.message;
import static dev.ondevice.optim.OptimFixtures.parameter;
import static dev.ondevice.optim.OptimFixtures.setGrad;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongToDoubleFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Learning-rate schedules against PyTorch's closed forms, epoch by epoch. */
class SchedulerTest {
  private static final double BASE = 0.1;

  static java.util.stream.Stream<Device> devices() {
    return OptimFixtures.devices();
  }

  private static Sgd sgd() {
    return new Sgd(List.of(parameter(new double[] {1, 2}, Device.cpu())), BASE).momentum(0.9);
  }

  /** Asserts the rates of epochs 0 to {@code epochs}: set at creation, then after each step. */
  private static void assertRates(LrScheduler schedule, int epochs, LongToDoubleFunction expected) {
    for (int epoch = 0; epoch <= epochs; epoch++) {
      if (epoch > 0) {
        schedule.step();
      }
      double rate = expected.applyAsDouble(epoch);
      assertEquals(epoch, schedule.lastEpoch());
      assertEquals(rate, schedule.lastLearningRate(), 1e-15 * (1 + rate), "epoch " + epoch);
      assertEquals(
          schedule.lastLearningRate(), schedule.optimizer().learningRate(), "the optimizer's rate");
    }
  }

  @Test
  void aSecondSchedulerStartsFromTheInitialRateAsInPyTorch() {
    Sgd sgd = sgd();
    LinearWarmup warmup = new LinearWarmup(sgd, 0.1, 4);
    assertEquals(BASE * 0.1, sgd.learningRate(), 1e-17, "the warm-up sets epoch 0's rate");
    CosineAnnealingLr cosine = new CosineAnnealingLr(sgd, 6);
    assertEquals(BASE, cosine.baseLearningRate(), "initial_lr, not the warmed-down rate");
    assertEquals(BASE, warmup.baseLearningRate());
  }

  @Test
  void aRejectedSchedulerLeavesTheInitialRateUnset() {
    Sgd sgd = sgd();
    assertThrows(IllegalArgumentException.class, () -> new LinearWarmup(sgd, 1.5, 4));
    assertThrows(IllegalArgumentException.class, () -> new StepLr(sgd, 0, 0.5));
    assertEquals(BASE, sgd.learningRate());
    sgd.setLearningRate(0.2);
    CosineAnnealingLr cosine = new CosineAnnealingLr(sgd, 6);
    assertEquals(
        0.2,
        cosine.baseLearningRate(),
        "the rate when the first scheduler was made, as PyTorch's initial_lr");
  }

  @Test
  void sequentialLrRunsSchedulesOneAfterAnother() {
    Sgd sgd = sgd();
    LinearWarmup warmup = new LinearWarmup(sgd, 0.25, 4);
    CosineAnnealingLr cosine = new CosineAnnealingLr(sgd, 6, 0.001);
    StepLr step = new StepLr(sgd, 2, 0.5);
    SequentialLr schedule = new SequentialLr(sgd, List.of(warmup, cosine, step), 4, 10);
    // torch.optim.lr_scheduler.SequentialLR: schedule i from milestone i - 1, counting from 0 there
    assertRates(
        schedule,
        16,
        e ->
            e < 4
                ? BASE * (0.25 + 0.75 * e / 4.0)
                : e < 10
                    ? 0.001 + (BASE - 0.001) * (1 + Math.cos(Math.PI * (e - 4) / 6)) / 2
                    : BASE * Math.pow(0.5, (double) Math.floorDiv(e - 10, 2)));
    Map<String, String> saved = schedule.stateDict();
    Sgd resumedSgd = sgd();
    SequentialLr resumed =
        new SequentialLr(
            resumedSgd,
            List.of(
                new LinearWarmup(resumedSgd, 0.25, 4),
                new CosineAnnealingLr(resumedSgd, 6, 0.001),
                new StepLr(resumedSgd, 2, 0.5)),
            4,
            10);
    resumed.loadStateDict(saved);
    assertEquals(schedule.lastLearningRate(), resumedSgd.learningRate());
    assertEquals(
        "SequentialLr: 2 schedulers need 1 milestones, got 2",
        message(
            IllegalArgumentException.class,
            () -> new SequentialLr(sgd, List.of(warmup, cosine), 4, 8)));
    assertEquals(
        "SequentialLr: milestones must be positive and increasing, got [5, 5]",
        message(
            IllegalArgumentException.class,
            () -> new SequentialLr(sgd, List.of(warmup, cosine, step), 5, 5)));
    assertEquals(
        "SequentialLr: a LinearWarmup of another optimizer; every scheduler must be of the optimizer given",
        message(IllegalArgumentException.class, () -> new SequentialLr(sgd(), List.of(warmup))));
  }

  @Test
  void stepLrDecaysByGammaEveryStepSizeEpochs() {
    StepLr schedule = new StepLr(sgd(), 3, 0.5);
    assertEquals(BASE, schedule.baseLearningRate());
    assertRates(schedule, 12, e -> BASE * Math.pow(0.5, (double) Math.floorDiv(e, 3)));
    assertEquals(BASE / 16, schedule.lastLearningRate(), 1e-17);
    assertRates(new StepLr(sgd(), 2), 6, e -> BASE * Math.pow(0.1, (double) Math.floorDiv(e, 2)));
  }

  @Test
  void cosineAnnealingFollowsTheClosedForm() {
    double etaMin = 0.001;
    int tMax = 10;
    CosineAnnealingLr schedule = new CosineAnnealingLr(sgd(), tMax, etaMin);
    assertRates(
        schedule, 3 * tMax, e -> etaMin + (BASE - etaMin) * (1 + Math.cos(Math.PI * e / tMax)) / 2);
    assertRates(
        new CosineAnnealingLr(sgd(), 4), 4, e -> BASE * (1 + Math.cos(Math.PI * e / 4)) / 2);
  }

  @Test
  void cosineAnnealingsClosedFormEqualsPyTorchsRecursiveForm() {
    double etaMin = 0.002;
    int tMax = 7;
    CosineAnnealingLr schedule = new CosineAnnealingLr(sgd(), tMax, etaMin);
    assertEquals(BASE, schedule.lastLearningRate());
    double lr = BASE;
    for (int epoch = 1; epoch <= 4 * tMax; epoch++) {
      // torch.optim.lr_scheduler.CosineAnnealingLR.get_lr, for last_epoch > 0
      if (Math.floorMod(epoch - 1 - tMax, 2 * tMax) == 0) {
        lr = lr + (BASE - etaMin) * (1 - Math.cos(Math.PI / tMax)) / 2;
      } else {
        lr =
            (1 + Math.cos(Math.PI * epoch / tMax))
                    / (1 + Math.cos(Math.PI * (epoch - 1) / tMax))
                    * (lr - etaMin)
                + etaMin;
      }
      schedule.step();
      assertEquals(lr, schedule.lastLearningRate(), 1e-12, "epoch " + epoch);
    }
    assertEquals(BASE, schedule.lastLearningRate(), 1e-12, "a full period after 2 tMax");
  }

  @Test
  void linearWarmupStartsLowAndReachesTheBase() {
    Sgd sgd = sgd();
    LinearWarmup warmup = new LinearWarmup(sgd, 0.25, 4);
    assertEquals(0.025, sgd.learningRate(), 1e-17, "set at creation");
    assertEquals(BASE, warmup.baseLearningRate());
    assertRates(warmup, 9, e -> BASE * (0.25 + 0.75 * Math.min(e, 4) / 4.0));
    assertEquals(BASE, sgd.learningRate(), 1e-17);
  }

  @Test
  void lambdaLrScalesTheBaseByTheFunction() {
    assertRates(
        new LambdaLr(sgd(), e -> Math.pow(0.95, (double) e)),
        10,
        e -> BASE * Math.pow(0.95, (double) e));
    message(
        IllegalArgumentException.class,
        () -> new LambdaLr(sgd(), e -> -1),
        "learning rate",
        "-0.1");
  }

  @ParameterizedTest
  @MethodSource("devices")
  void theOptimizerStepsWithTheScheduledRate(Device device) {
    Parameter p = parameter(new double[] {1, 2}, device);
    Sgd sgd = new Sgd(List.of(p), 0.4);
    StepLr schedule = new StepLr(sgd, 1, 0.5);
    double[] expected = {1, 2};
    for (int epoch = 0; epoch < 4; epoch++) {
      setGrad(p, new double[] {1, -1});
      sgd.step();
      schedule.step();
      double lr = 0.4 * Math.pow(0.5, epoch);
      expected = new double[] {expected[0] - lr, expected[1] + lr};
    }
    assertClose(expected, p.toDoubleArray(), 1e-15, "parameter under a step schedule");
  }

  @Test
  void theStateDictResumesTheSchedule() {
    CosineAnnealingLr schedule = new CosineAnnealingLr(sgd(), 10, 0.001);
    for (int e = 0; e < 4; e++) {
      schedule.step();
    }
    Map<String, String> saved = schedule.stateDict();
    assertEquals(Map.of("type", "CosineAnnealingLr", "base_lr", "0.1", "last_epoch", "4"), saved);

    Sgd resumed = sgd();
    resumed.setLearningRate(0.5);
    CosineAnnealingLr again = new CosineAnnealingLr(resumed, 10, 0.001);
    again.loadStateDict(saved);
    assertEquals(4, again.lastEpoch());
    assertEquals(BASE, again.baseLearningRate());
    assertEquals(schedule.lastLearningRate(), resumed.learningRate());
    schedule.step();
    again.step();
    assertEquals(schedule.lastLearningRate(), again.lastLearningRate());
    assertSame(resumed, again.optimizer());
  }

  @Test
  void aScheduleStateOfAnotherTypeOrInvalidValuesIsRejected() {
    Map<String, String> stepState = new StepLr(sgd(), 2).stateDict();
    CosineAnnealingLr cosine = new CosineAnnealingLr(sgd(), 5);
    message(
        IllegalArgumentException.class,
        () -> cosine.loadStateDict(stepState),
        "StepLr",
        "CosineAnnealingLr");
    Map<String, String> bad = new LinkedHashMap<>(cosine.stateDict());
    bad.put("last_epoch", "two");
    message(
        IllegalArgumentException.class,
        () -> cosine.loadStateDict(bad),
        "CosineAnnealingLr",
        "last_epoch",
        "two");
    bad.put("last_epoch", "-1");
    message(IllegalArgumentException.class, () -> cosine.loadStateDict(bad), "a last_epoch >= 0");
    bad.remove("base_lr");
    message(IllegalArgumentException.class, () -> cosine.loadStateDict(bad), "base_lr");
    assertEquals(0, cosine.lastEpoch());
    assertEquals(BASE, cosine.optimizer().learningRate());
  }

  @Test
  void invalidArgumentsAreRejectedNamingTheScheduleAndValue() {
    message(
        IllegalArgumentException.class, () -> new StepLr(sgd(), 0, 0.1), "StepLr", "stepSize", "0");
    message(
        IllegalArgumentException.class, () -> new StepLr(sgd(), 3, 0), "StepLr", "gamma", "0.0");
    message(
        IllegalArgumentException.class,
        () -> new StepLr(sgd(), 3, Double.NaN),
        "StepLr",
        "gamma",
        "NaN");
    message(
        IllegalArgumentException.class,
        () -> new CosineAnnealingLr(sgd(), 0),
        "CosineAnnealingLr",
        "tMax",
        "0");
    message(
        IllegalArgumentException.class,
        () -> new CosineAnnealingLr(sgd(), 10, -0.1),
        "CosineAnnealingLr",
        "etaMin",
        "-0.1");
    message(
        IllegalArgumentException.class,
        () -> new LinearWarmup(sgd(), 0, 5),
        "LinearWarmup",
        "startFactor",
        "0.0");
    message(
        IllegalArgumentException.class,
        () -> new LinearWarmup(sgd(), 1.5, 5),
        "LinearWarmup",
        "startFactor",
        "1.5");
    message(
        IllegalArgumentException.class,
        () -> new LinearWarmup(sgd(), 0.1, 0),
        "LinearWarmup",
        "warmupSteps",
        "0");
    message(NullPointerException.class, () -> new StepLr(null, 1), "optimizer");
  }
}
