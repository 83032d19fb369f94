package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/** {@code DiscardedMove}: a tensor move whose result is discarded, or stored and never read. */
class DiscardedMoveTest {
  @Test
  void aMoveStoredButNeverReadWhileTheOriginalIsUsedIsDiscarded() {
    AnalysedSources.check(
        "Stored",
        """
        class Stored {
          Tensor run(Device device, Tensor x, Tensor y) {
            Tensor moved = x.to(device); // expect: DiscardedMove
            Tensor used = y.to(device);
            Tensor unused = y.to(device);
            return x.add(used);
          }
        }\
        """);
  }

  @Test
  void discardedMovesAndOps() {
    AnalysedSources.check(
        "Discards",
        """
        class Discards {
          void run(Device device, Tensor x) {
            x.to(device); // expect: DiscardedMove
            x.cpu(); // expect: DiscardedMove
            x.add(x); // expect: DiscardedTensorOp
            x.addi(x);
            x = x.to(device);
            Tensor y = x.add(x);
          }
        }\
        """);
  }

  @Test
  void aFactoryConstructorMovedRightAwayIsReportedWithoutAFix() {
    JavaFileObject f =
        source(
            "Features",
            AnalysedSources.IMPORTS
                + """
        class Features {
          final Tensor values;

          @dev.ondevice.annotations.Factory
          Features(int n) {
            values = Tensor.randn(n, n);
          }

          @dev.ondevice.annotations.Move
          Features to(Device device) {
            return this;
          }

          static Features load(Device device, Tensor unrelated) {
            unrelated.to(device); // expect: DiscardedMove
            return new Features(16).to(device); // expect: warning CreateThenMove
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadWarningContaining(
            "new Features(16) creates the tensor on the CPU and to(device) copies it to the"
                + " device right away; create it there instead: pass the device to the factory")
        .inFile(f)
        .onLine(27);
  }

  @Test
  void methodReferencesWhoseResultsAreDropped() {
    AnalysedSources.check(
        "References",
        """
        class References {
          List<Tensor> run(List<Tensor> xs) {
            xs.forEach(Tensor::cpu); // expect: DiscardedMove
            xs.forEach(x -> x.cpu()); // expect: DiscardedMove
            Runnable r = xs.get(0)::cpu; // expect: DiscardedMove
            return xs.stream().map(Tensor::cpu).toList();
          }
        }\
        """);
  }

  @Test
  void aDiscardedMoveIsReportedOnceNotAgainWhereTheTensorIsUsed() {
    AnalysedSources.check(
        "OneMistake",
        """
        class OneMistake {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x) {
              return x;
            }
          }

          void run(Net net, Loader loader, Loss loss, Device device) {
            net.toDevice(device);
            for (Loader.Batch b : loader) {
              Tensor xb = b.inputs();
              Tensor yb = b.targets().to(device);
              xb.to(device); // expect: DiscardedMove
              Tensor l = loss.forward(net.forward(xb), yb);
            }
          }
        }\
        """);
  }
}
