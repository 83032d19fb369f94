package dev.ondevice.processor;

import org.junit.jupiter.api.Test;

/** {@code NonBlockingFromPageable}: a non-blocking copy from memory that is not pinned. */
class NonBlockingFromPageableTest {
  @Test
  void nonBlockingCopies() {
    AnalysedSources.check(
        "Copies2",
        """
        class Copies2 {
          void run(Device device) {
            Tensor pageable = Tensor.randn(2, 2);
            Tensor a = pageable.to(device, true); // expect: warning NonBlockingFromPageable
            Tensor b = pageable.pinMemory().to(device, true);
            Tensor host = Tensor.randn(2, 2, device).to(Device.cpu(), true);
            float[] early = host.toFloatArray(); // expect: UnsyncedNonBlockingRead
            Tensor host2 = Tensor.randn(2, 2, device).to(Device.cpu(), true);
            Cuda.synchronize();
            float[] fine = host2.toFloatArray();
          }
        }\
        """);
  }
}
