package dev.ondevice.processor;

import static dev.ondevice.processor.AnalysedSources.check;

import org.junit.jupiter.api.Test;

/**
 * Host syncs in code that runs once per step without being in a batch loop: a model's {@code
 * forward} and what it calls, and the methods a batch loop calls on every batch.
 */
class StepMethodsTest {
  @Test
  void hostReadInForwardOfADeviceTensorIsASyncPerStep() {
    check(
        "Forward",
        """
        class Forward {
          static class Attend extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x, Tensor lengths) {
              float[] l = lengths.toFloatArray();
              Tensor scores = x.mul(w);
              if (scores.sum().item() > 0) { // expect: warning HostSyncInLoop
                scores = scores.add(x);
              }
              return scores.add(masked(scores));
            }

            Tensor masked(Tensor s) {
              double m = s.sum().item(); // expect: warning HostSyncInLoop
              return s;
            }

            Tensor predict(Tensor x) {
              return forward(x, null).cpu();
            }
          }
        }\
        """);
  }

  @Test
  void aTensorReadOnTheHostByAHelperOfForwardIsWhereForwardGivesIt() {
    check(
        "Rotary",
        """
        class Rotary {
          static class Embedding extends Model {
            dev.ondevice.Parameter table;
            double cached;

            void updateCache(Tensor indexes) {
              double n = indexes.item(); // expect: warning HostSyncInLoop
              if (n > cached) {
                cached = n;
              }
            }

            void logged(Tensor t) {
              System.out.println(t.toFloatArray().length);
            }

            Tensor forward(Tensor x, Tensor indexes) {
              updateCache(indexes);
              logged(x.cpu());
              return x.mul(table).indexSelect(0, indexes);
            }
          }
        }\
        """);
  }

  @Test
  void aHelperCalledOnEveryBatchSyncsOnEveryBatch() {
    check(
        "Helpers",
        """
        class Helpers {
          static class Meter {
            double sum;

            void update(Tensor loss) {
              sum += loss.item(); // expect: warning HostSyncInLoop
            }

            void log(Tensor loss) {
              System.out.println(loss.item());
            }
          }

          static double hostOnly(Tensor t) {
            return t.item();
          }

          void train(Loader loader, Device device, Meter meter) {
            int step = 0;
            for (Loader.Batch b : loader) {
              Tensor loss = b.inputs().to(device).sum();
              meter.update(loss);
              if (++step % 100 == 0) {
                meter.log(loss);
              }
              double d = hostOnly(b.targets());
            }
          }
        }\
        """);
  }

  @Test
  void withoutTheLoopTheHelperIsNotReported() {
    check(
        "NoLoop",
        """
        class NoLoop {
          static double read(Tensor loss) {
            return loss.item();
          }

          double once(Tensor loss) {
            return read(loss);
          }
        }\
        """);
  }

  @Test
  void aLoopThatCallsBackwardOnEveryIterationIsABatchLoop() {
    check(
        "Gan",
        """
        class Gan {
          double train(Device device, int iterations) {
            double last = 0;
            for (int i = 0; i < iterations; i++) {
              Tensor loss = Tensor.randn(2, 2, device).sum();
              loss.backward();
              last = loss.item(); // expect: warning HostSyncInLoop
            }
            for (int i = 0; i < iterations; i++) {
              Tensor loss = Tensor.randn(2, 2, device).sum();
              last = loss.item();
            }
            return last;
          }
        }\
        """);
  }

  @Test
  void aReadInABranchThatTrainsOnEveryNthIterationIsThatStepsRead() {
    check(
        "Critic",
        """
        class Critic {
          double train(Device device, int iterations, int nCritic) {
            double d = 0;
            double g = 0;
            for (int i = 0; i < iterations; i++) {
              Tensor dLoss = Tensor.randn(2, 2, device).sum();
              dLoss.backward();
              if ((i + 1) % nCritic == 0) {
                Tensor gLoss = Tensor.randn(2, 2, device).sum();
                g = gLoss.item(); // expect: warning HostSyncInLoop
                gLoss.backward();
              }
              if ((i + 1) % 100 == 0) {
                d = dLoss.item();
              }
            }
            return d + g;
          }
        }\
        """);
  }

  @Test
  void aLoopThatTrainsThroughAHelperIsABatchLoop() {
    check(
        "Microbatches",
        """
        class Microbatches {
          static void backwardStep(Tensor loss) {
            loss.backward();
          }

          static void epoch(Device device, int steps) {
            for (int i = 0; i < steps; i++) {
              backwardStep(Tensor.randn(2, 2, device).sum());
            }
          }

          long schedule(Device device, int microbatches) {
            long tokens = 0;
            for (int i = 0; i < microbatches; i++) {
              Tensor numTokens = Tensor.randn(2, 2, device).sum();
              backwardStep(numTokens);
              tokens += (long) numTokens.item(); // expect: warning HostSyncInLoop
            }
            for (int e = 0; e < 3; e++) {
              epoch(device, microbatches);
              tokens += (long) Tensor.randn(2, 2, device).sum().item();
            }
            return tokens;
          }
        }\
        """);
  }

  @Test
  void aReadOfATensorComputedFromParametersInAStepMethodReadsTheDevice() {
    check(
        "Optimizers",
        """
        class Optimizers {
          static final class Prodigy {
            final List<dev.ondevice.Parameter> params;
            double numerator;
            double host;

            Prodigy(List<dev.ondevice.Parameter> params) {
              this.params = params;
            }

            void step(List<Tensor> hostTensors) {
              for (dev.ondevice.Parameter p : params) {
                Tensor grad = p.grad();
                numerator += grad.mul(p.detach()).sum().item(); // expect: warning HostSyncInLoop
              }
              for (Tensor t : hostTensors) {
                host += t.sum().item();
              }
            }
          }

          void train(Device device, int steps, List<dev.ondevice.Parameter> params, List<Tensor> hostTensors) {
            Prodigy optimizer = new Prodigy(params);
            for (int i = 0; i < steps; i++) {
              Tensor loss = Tensor.randn(2, 2, device).sum();
              loss.backward();
              optimizer.step(hostTensors);
            }
          }
        }\
        """);
  }

  @Test
  void aLossReadInAStepMethodAfterItsBackwardReadsTheDevice() {
    check(
        "Trainers",
        """
        class Trainers {
          interface Objective {
            Tensor[] loss(Tensor batch);
          }

          static final class Trainer {
            final Objective objective;
            final Device device;

            Trainer(Objective objective, Device device) {
              this.objective = objective;
              this.device = device;
            }

            double trainStep(Tensor batch) {
              Tensor[] out = objective.loss(batch.to(device));
              Tensor loss = out[0];
              loss.backward();
              Tensor other = out[1];
              return loss.item() + other.item(); // expect: warning HostSyncInLoop
            }

            void train(List<Tensor> batches) {
              for (Tensor b : batches) {
                trainStep(b);
              }
            }
          }
        }\
        """);
  }
}
