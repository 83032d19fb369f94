package dev.ondevice.processor;

import org.junit.jupiter.api.Test;

/**
 * {@code CreateThenMove}: a tensor created on the CPU and moved to a device right away, directly or
 * through variables and helpers.
 */
class CreateThenMoveTest {
  @Test
  void privateHelpersWhoseCpuResultsTheirCallersMoveOrReadThroughLocals() {
    AnalysedSources.check(
        "Helpers",
        """
        class Helpers {
          static class Masks extends Model {
            dev.ondevice.Parameter w;

            private Tensor local(int n) {
              return Tensor.randn(n, n);
            }

            private Tensor atUse(int n) {
              return Tensor.randn(n, n);
            }

            private Tensor guarded(int n) {
              return Tensor.randn(n, n);
            }

            private Tensor rows(int n) {
              return Tensor.randn(n, 1);
            }

            private Tensor summed(int n) {
              return Tensor.randn(n, n);
            }

            private Tensor leaked(int n) {
              return Tensor.randn(n, n); // expect: DefaultDeviceInModel
            }

            private Tensor late(int n) {
              return Tensor.randn(n, n); // expect: DefaultDeviceInModel
            }

            Tensor forward(Tensor x) {
              Tensor a = local(2);
              a = a.to(x.device()); // expect: warning CreateThenMove
              Tensor b = atUse(2);
              Tensor c = guarded(2);
              if (!c.device().equals(x.device())) {
                c = c.to(x.device());
              }
              float[] r = rows(2).toFloatArray();
              Tensor s = summed(2).sum().to(x.device()); // expect: warning CreateThenMove
              Tensor d = leaked(2);
              Tensor y = x.mul(w).add(d);
              Tensor e = late(2);
              Tensor z = y.add(e);
              e = e.to(x.device());
              return z.add(a).add(b.to(x.device())).add(c).add(s).add(e); // expect: warning CreateThenMove
            }
          }
        }\
        """);
  }

  @Test
  void createThenMove() {
    AnalysedSources.check(
        "Creates",
        """
        class Creates {
          void run(Device device) {
            Tensor a = Tensor.randn(3, 3).to(device); // expect: warning CreateThenMove
            Tensor b = Tensor.randn(3, 3, device);
            Tensor c = Tensor.of(1f, 2f).to(device);
          }

          Tensor throughOps(Tensor timesteps, int half) {
            Tensor freqs = Tensor.randn(2, 2).mul(Tensor.scalar(-2.0)).sum().to(timesteps.device()); // expect: warning CreateThenMove
            Tensor mixed = Tensor.randn(2, 2).mul(timesteps).to(timesteps.device());
            return freqs;
          }
        }\
        """);
  }

  @Test
  void createThenMoveThroughAVariableOrAHelperOnEveryStep() {
    AnalysedSources.check(
        "Encodings",
        """
        class Encodings {
          static Tensor sinusoid(Tensor positions, Tensor frequencies) {
            Tensor angles = positions.mul(frequencies);
            return Tensor.cat(List.of(angles, angles.mul(Tensor.scalar(2.0))), 0);
          }

          static Tensor encoding(long n) {
            Tensor positions = Tensor.randn(n, 1);
            return sinusoid(positions, Tensor.randn(1, 8));
          }

          static Tensor fromData(Tensor data) {
            return sinusoid(data, Tensor.randn(1, 8));
          }

          static class Attention extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              Tensor pos = encoding(4);
              pos = pos.to(x.device()); // expect: warning CreateThenMove
              Tensor direct = encoding(4).to(x.device()); // expect: warning CreateThenMove
              Tensor data = fromData(x.detach().cpu()).to(x.device());
              Tensor written = Tensor.randn(2, 2);
              written.addi(x.detach().cpu());
              Tensor alsoOnTheCpu = Tensor.randn(2, 2);
              double host = alsoOnTheCpu.sum().item();
              return x.mul(w).add(pos).add(direct).add(data).add(written.to(x.device()))
                  .add(alsoOnTheCpu.to(x.device()));
            }
          }

          static Tensor setUp(Device device) {
            Tensor table = encoding(16);
            return table.to(device);
          }
        }\
        """);
  }

  @Test
  void aHelperFirstSeenAtTheDepthLimitIsSeenInFullFromNearer() {
    AnalysedSources.check(
        "Chains",
        """
        class Chains {
          static class Attention extends Model {
            dev.ondevice.Parameter w;

            static Tensor encoding(long n) {
              return Tensor.randn(n, n).detach();
            }

            static Tensor one(long n) { return two(n); }
            static Tensor two(long n) { return three(n); }
            static Tensor three(long n) { return encoding(n); }

            Tensor forward(Tensor x) {
              Tensor far = one(2).to(x.device());
              Tensor near = three(2).to(x.device()); // expect: warning CreateThenMove
              return x.mul(w).add(far).add(near);
            }
          }
        }\
        """);
  }
}
