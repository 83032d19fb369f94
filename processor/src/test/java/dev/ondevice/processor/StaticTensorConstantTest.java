package dev.ondevice.processor;

import org.junit.jupiter.api.Test;

/** {@code StaticTensorConstant}: a static tensor on the CPU meeting tensors on a device. */
class StaticTensorConstantTest {
  @Test
  void staticConstantsAreEvaluatedFromTheirInitializers() {
    AnalysedSources.check(
        "Statics",
        """
        class Statics {
          static final Tensor TWO = Tensor.scalar(2.0);
          static final Device DEVICE = Device.cudaIfAvailable();
          static final Tensor ON_DEVICE = Tensor.randn(2, 2, DEVICE);
          static final Tensor HOST = Tensor.randn(2, 2);
          @SuppressWarnings("StaticTensorConstant")
          static final Tensor QUIET = Tensor.randn(2, 2);

          void run() {
            Tensor x = Tensor.randn(2, 2, DEVICE);
            Tensor a = x.mul(TWO).add(ON_DEVICE);
            Tensor b = x.add(HOST.mul(TWO)); // expect: StaticTensorConstant
            Tensor c = x.add(QUIET);
          }
        }\
        """);
  }

  @Test
  void aStaticTensorFieldWithoutAnInitializerIsACacheOnAnUnknownDevice() {
    AnalysedSources.check(
        "Caches",
        """
        class Caches {
          private static Tensor mask;
          static final Tensor TABLE = Tensor.randn(2, 2);

          static Tensor masked(Tensor scores, Device device) {
            if (mask == null) {
              mask = Tensor.ones(dev.ondevice.Shape.of(2, 2), device);
            }
            return scores.to(device).mul(mask);
          }

          static Tensor table(Tensor scores, Device device) {
            return scores.to(device).mul(TABLE); // expect: StaticTensorConstant
          }

          static final Tensor MEAN;

          static {
            MEAN = Tensor.randn(2, 2);
          }

          static Tensor centred(Tensor x, Device device) {
            return x.to(device).add(MEAN); // expect: StaticTensorConstant
          }
        }\
        """);
  }
}
