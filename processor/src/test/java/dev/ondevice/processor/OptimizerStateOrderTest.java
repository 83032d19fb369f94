package dev.ondevice.processor;

import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/** {@code OptimizerStateLeftBehind}: saved optimizer state loaded before the model it serves moves. */
class OptimizerStateOrderTest {
  @Test
  void stateLoadedBeforeTheModelMovesIsLeftBehind() {
    JavaFileObject f = source("Resume", AnalysedSources.IMPORTS + """
        import dev.ondevice.optim.Sgd;
        class Resume {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            List<dev.ondevice.Parameter> parameters() { return List.of(w); }
          }

          void beforeTheMove(Object saved, Device device) {
            Net model = new Net();
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            optimizer.loadStateDict(saved); // expect: OptimizerStateLeftBehind
            model.toDevice(device);
            optimizer.step();
          }

          void afterTheMove(Object saved, Device device) {
            Net model = new Net();
            model.toDevice(device);
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            optimizer.loadStateDict(saved);
            optimizer.step();
          }

          void followed(Object saved, Device device) {
            Net model = new Net();
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            optimizer.loadStateDict(saved);
            model.toDevice(device);
            optimizer.followParameters();
            optimizer.step();
          }

          void otherModelMoves(Object saved, Device device) {
            Net model = new Net();
            Net other = new Net();
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            optimizer.loadStateDict(saved);
            other.toDevice(device);
          }
        }\
        """);
    Compilation c = Sources.compile(List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
  }
}
