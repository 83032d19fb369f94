package dev.ondevice.processor;

import org.junit.jupiter.api.Test;

/**
 * {@code UnsyncedNonBlockingRead}: the result of a non-blocking copy to the host read before a
 * synchronisation.
 */
class UnsyncedNonBlockingReadTest {
  @Test
  void aReadGuardedByIsReadyIsNotAnUnsynchronisedRead() {
    AnalysedSources.check(
        "Ready",
        """
        class Ready {
          void show(Tensor x, Device device) {
            Tensor host = x.to(device).sum().to(Device.cpu(), true);
            if (host.isReady()) {
              System.out.println(host.item());
            }
          }

          double unguarded(Tensor x, Device device) {
            Tensor host = x.to(device).sum().to(Device.cpu(), true);
            return host.item(); // expect: UnsyncedNonBlockingRead
          }

          double onTheBranchWhereItIsNotReady(Tensor x, Device device) {
            Tensor host = x.to(device).sum().to(Device.cpu(), true);
            if (!host.isReady()) {
              return host.item(); // expect: UnsyncedNonBlockingRead
            }
            double ready = host.item();
            Tensor other = x.to(device).sum().to(Device.cpu(), true);
            if ((other.isReady())) {
              ready += other.item();
            } else {
              ready -= other.item(); // expect: UnsyncedNonBlockingRead
            }
            return ready;
          }

          void progress(Loader loader, Loss loss, Device device) {
            Tensor shown = null;
            for (Loader.Batch b : loader) {
              Tensor l = loss.forward(b.inputs().to(device), b.targets().to(device));
              if (shown != null && shown.isReady()) {
                System.out.println(shown.item());
              }
              shown = l.detach().to(Device.cpu(), true);
              double now = l.item(); // expect: warning HostSyncInLoop
            }
          }
        }\
        """);
  }
}
