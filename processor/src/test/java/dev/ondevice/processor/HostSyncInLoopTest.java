package dev.ondevice.processor;

import org.junit.jupiter.api.Test;

/**
 * {@code HostSyncInLoop}: reads on the host on every batch, and the reads on some batches only that
 * are left alone.
 */
class HostSyncInLoopTest {
  @Test
  void theSeedsTrainingLoopBugs() {
    AnalysedSources.check(
        "Train",
        """
        class Train {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x) {
              return x;
            }
          }

          void run(Device device, Loader loader, Loss loss) {
            Net net = new Net();
            Tensor probe = net.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
            net.toDevice(device);
            Tensor total = Tensor.scalar(0.0);
            for (Loader.Batch batch : loader) {
              Tensor xb = batch.inputs().to(device);
              Tensor yb = batch.targets();
              Tensor out = net.forward(xb);
              Tensor l = loss.forward(out, yb); // expect: TargetsNotMoved
              double v = l.item(); // expect: warning HostSyncInLoop
              System.out.println("loss " + l); // expect: warning HostSyncInLoop
              total = total.add(l.detach());
            }
            double epoch = total.item();
          }

          @Step
          double step(Tensor loss) {
            return loss.item(); // expect: warning HostSyncInLoop
          }

          // Logging every n steps, a last read before stopping, printing a CPU tensor: not every batch.
          void logging(Device device, Loader loader, Loss loss, int maxSteps) {
            int step = 0;
            for (Loader.Batch batch : loader) {
              Tensor l = loss.forward(batch.inputs().to(device), batch.targets().to(device));
              if (++step % 25 == 0) {
                System.out.println("step " + step + " loss " + l.item());
              }
              if (step % 25 != 0) {
                continue;
              } else {
                double every = l.item(); // the else of step % 25 != 0: every 25th batch
              }
              if (step == maxSteps) {
                System.out.println("last loss " + l.item());
                break;
              }
              if (step == 1) {
                System.out.println("first targets " + batch.targets());
              }
              if (step % 10 != 0) {
                double most = l.item(); // expect: warning HostSyncInLoop
              }
              switch (step) {
                case 3: {
                  double each = l.item(); // expect: warning HostSyncInLoop
                  break;
                }
                default:
                  break;
              }
              if (step % 50 == 0) {
                for (int k = 0; k < 2; k++) {
                  double inner = l.item();
                }
              }
              if (step % 100 == 0 && l.item() < 0.1) {
                System.out.println("good enough at " + step);
              }
              if (step % 100 != 0 || l.item() > 10) {
                double most = step;
              } else {
                double logged = l.item();
              }
              double shown = step % 20 == 0 ? l.item() : Double.NaN;
              double hidden = step % 20 != 0 ? l.item() : Double.NaN; // expect: warning HostSyncInLoop
              if (!(step % 100 == 0)) {
                double inverted = l.item(); // expect: warning HostSyncInLoop
              }
              if (!(step % 100 != 0)) {
                double twiceInverted = l.item();
              }
              if (step % 200 == 0) {
                Tensor copy = l.to(Device.cpu());
              }
              Tensor copied = l.to(Device.cpu()); // expect: warning HostSyncInLoop
              switch (step) {
                case 0:
                  double lastOfCase = l.item();
                  return;
                case 1:
                  double thenBreak = l.item(); // expect: warning HostSyncInLoop
                  break;
                default:
                  break;
              }
            }
          }

          @Step
          double guardedStep(Tensor loss, int step) {
            if (step % 10 != 0) {
              return 0;
            }
            return loss.item();
          }

          @Step
          double unguardedStep(Tensor loss, int step) {
            if (step % 10 == 0) {
              return 0;
            }
            return loss.item(); // expect: warning HostSyncInLoop
          }

          void guarded(Device device, Loader loader, Loss loss) {
            int step = 0;
            training:
            for (int epoch = 0; epoch < 3; epoch++) {
              for (Loader.Batch batch : loader) {
                Tensor l = loss.forward(batch.inputs().to(device), batch.targets().to(device));
                if (++step % 100 != 0) {
                  continue;
                }
                double logged = l.item();
                if (step > 1000) {
                  double last = l.item();
                  break training;
                }
              }
            }
          }

          @Step
          double stepAndReturn(Tensor loss) {
            double v = loss.item(); // expect: warning HostSyncInLoop
            return v;
          }
        }\
        """);
  }

  @Test
  void readsOnSomeBatchesOnlyThroughSumsArraysIteratorsFlagsMasksAndSwitchExpressions() {
    AnalysedSources.check(
        "MorePeriodic",
        """
        class MorePeriodic {
          double run(Device device, Loader loader, Loss loss, int accum, int n) {
            int i = 0;
            int[] step = {0};
            boolean first = true;
            boolean done = false;
            double seen = 0;
            for (Loader.Batch b : loader) {
              Tensor l = loss.forward(b.inputs().to(device), b.targets().to(device));
              step[0]++;
              if ((i + 1) % accum == 0 || i + 1 == n) {
                seen += l.item();
              }
              if (i - 1 == n + i) {
                seen += l.item(); // expect: warning HostSyncInLoop
              }
              if (step[0] % 5 == 0) {
                seen += l.item();
              }
              if (first) {
                seen += l.item();
                first = false;
              }
              if (!done) {
                seen += l.item();
                done = true;
              }
              boolean again = true;
              if (again) {
                seen += l.item(); // expect: warning HostSyncInLoop
                again = false;
              }
              int phase = i % 3;
              if (phase == 0) {
                seen += l.item();
              }
              if ((i & 7) == 0) {
                seen += l.item();
              }
              seen += switch (i % 4) {
                case 0 -> l.item();
                default -> 0;
              };
              seen += switch (n) {
                case 0 -> l.item(); // expect: warning HostSyncInLoop
                default -> 0;
              };
              i++;
            }
            Loader.Batches it = loader.iterator();
            while (it.hasNext()) {
              Loader.Batch b = it.next();
              Tensor l = loss.forward(b.inputs().to(device), b.targets().to(device));
              if (!it.hasNext()) {
                seen += l.item();
              }
              if (it.hasNext()) {
                seen += l.item(); // expect: warning HostSyncInLoop
              }
            }
            return seen;
          }
        }\
        """);
  }

  @Test
  void readsOnSomeBatchesOnlyThroughLambdasLocalsSwitchesAndExits() {
    AnalysedSources.check(
        "Periodic",
        """
        class Periodic {
          static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger("periodic");

          double run(Device device, Loader loader, Loss loss, int maxSteps, boolean verbose, boolean quiet) {
            int step = 0;
            for (int epoch = 0; epoch < 3; epoch++) {
              for (Loader.Batch b : loader) {
                Tensor l = loss.forward(b.inputs().to(device), b.targets().to(device));
                if (++step == maxSteps) {
                  return l.item();
                }
                if (step < 0) {
                  throw new IllegalStateException("diverged: " + l);
                }
                if (step % 100 == 0) {
                  LOG.info(() -> "loss " + l.item());
                }
                boolean logStep = step % 50 == 0;
                if (logStep) {
                  double logged = l.item();
                }
                if (epoch % 5 == 0) {
                  double everyBatchOfSomeEpochs = l.item(); // expect: warning HostSyncInLoop
                }
                for (int i = 0; i < 10; i++) {
                  if (i % 10 == 0) {
                    double oncePerBatch = l.item(); // expect: warning HostSyncInLoop
                  }
                }
                if (step % 100 == 0 || verbose) {
                  double everyBatchWhenVerbose = l.item(); // expect: warning HostSyncInLoop
                }
                switch (step % 7) {
                  case 0:
                    double seventh = l.item();
                    break;
                  default:
                    break;
                }
                if (Math.floorMod(step, 30) == 0) {
                  double thirtieth = l.item();
                }
                if (step % 100 != 0 && quiet) {
                  continue;
                }
                double everyBatchUnlessQuiet = l.item(); // expect: warning HostSyncInLoop
                if (step % 20 != 0) {
                  verbose = !verbose;
                  continue;
                }
                double twentieth = l.item();
              }
            }
            return 0;
          }

          double neverStepped(Device device, Loader loader, Loss loss) {
            int step = 0;
            for (Loader.Batch b : loader) {
              Tensor l = loss.forward(b.inputs().to(device), b.targets().to(device));
              if (step % 10 == 0) {
                double everyBatch = l.item(); // expect: warning HostSyncInLoop
              }
            }
            return 0;
          }

          @Step
          static float[] toHost(Tensor logits) {
            return logits.to(Device.cpu()).toFloatArray(); // expect: warning HostSyncInLoop
          }

          @Step
          static void metrics(java.util.Map<String, Tensor> metrics, int step) {
            if (step % 10 != 0) {
              return;
            }
            metrics.forEach((k, v) -> System.out.println(k + " " + v.item()));
          }
        }\
        """);
  }

  @Test
  void blockingCopiesToTheHostInTheBatchLoopAreHostSyncs() {
    AnalysedSources.check(
        "CopyToHost",
        """
        class CopyToHost {
          void run(Device device, Loader loader) {
            for (Loader.Batch b : loader) {
              Tensor pred = b.inputs().to(device);
              Tensor host = pred.to(Device.cpu()); // expect: warning HostSyncInLoop
              Tensor later = pred.to(Device.cpu(), true);
              Tensor stays = b.targets().to(Device.cpu());
            }
          }
        }\
        """);
  }

  @Test
  void batchIteratorsInAnyLoopForm() {
    AnalysedSources.check(
        "IteratorForms",
        """
        class IteratorForms {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x) {
              return x;
            }
          }

          void declaredAsIterator(Net net, Loader loader, Loss loss, Device device) {
            net.toDevice(device);
            java.util.Iterator<Loader.Batch> it = loader.iterator();
            while (it.hasNext()) {
              Loader.Batch b = it.next();
              Tensor l = loss.forward(net.forward(b.inputs().to(device)), b.targets()); // expect: TargetsNotMoved
            }
          }

          void withABudget(Net net, Loader loader, Device device, int max) {
            net.toDevice(device);
            Loader.Batches it = loader.iterator();
            int step = 0;
            while (it.hasNext() && step++ < max) {
              double v = net.forward(it.next().inputs().to(device)).item(); // expect: warning HostSyncInLoop
            }
          }

          void breakingOut(Net net, Loader loader, Device device) {
            net.toDevice(device);
            Loader.Batches it = loader.iterator();
            while (true) {
              if (!it.hasNext()) {
                break;
              }
              Loader.Batch b = it.next();
              double v = net.forward(b.inputs().to(device)).item(); // expect: warning HostSyncInLoop
            }
          }
        }\
        """);
  }
}
