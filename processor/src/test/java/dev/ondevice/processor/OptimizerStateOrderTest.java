package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * {@code OptimizerStateLeftBehind}: saved optimizer state loaded before the model it serves moves.
 */
class OptimizerStateOrderTest {
  @Test
  void stateLoadedBeforeTheModelMovesIsLeftBehind() {
    JavaFileObject f =
        source(
            "Resume",
            AnalysedSources.IMPORTS
                + """
        import dev.ondevice.optim.Sgd;
        class Resume {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            List<dev.ondevice.Parameter> parameters() { return List.of(w); }
          }

          void beforeTheMove(dev.ondevice.optim.OptimizerState saved, Device device) {
            Net model = new Net();
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            optimizer.loadStateDict(saved); // expect: OptimizerStateLeftBehind
            model.toDevice(device);
            optimizer.step();
          }

          void afterTheMove(dev.ondevice.optim.OptimizerState saved, Device device) {
            Net model = new Net();
            model.toDevice(device);
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            optimizer.loadStateDict(saved);
            optimizer.step();
          }

          void followed(dev.ondevice.optim.OptimizerState saved, Device device) {
            Net model = new Net();
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            optimizer.loadStateDict(saved);
            model.toDevice(device);
            optimizer.followParameters();
            optimizer.step();
          }

          void otherModelMoves(dev.ondevice.optim.OptimizerState saved, Device device) {
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

  @Test
  void stateLoadedByAHelperBeforeTheModelMovesIsReportedAtTheLoad() {
    JavaFileObject f =
        source(
            "ResumeHelper",
            AnalysedSources.IMPORTS
                + """
        import dev.ondevice.optim.Optimizer;
        import dev.ondevice.optim.Sgd;
        class ResumeHelper {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            List<dev.ondevice.Parameter> parameters() { return List.of(w); }
          }

          static void loadEpoch(dev.ondevice.optim.OptimizerState saved, Optimizer optm) {
            optm.loadStateDict(saved); // expect: OptimizerStateLeftBehind
          }

          static void loadOther(dev.ondevice.optim.OptimizerState saved, Optimizer optm, Optimizer other) {
            other.loadStateDict(saved);
          }

          void resume(dev.ondevice.optim.OptimizerState saved, Device device) {
            Net model = new Net();
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            loadEpoch(saved, optimizer);
            model.toDevice(device);
            optimizer.step();
          }

          void resumeAfterTheMove(dev.ondevice.optim.OptimizerState saved, Device device) {
            Net model = new Net();
            model.toDevice(device);
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            loadEpoch(saved, optimizer);
            optimizer.step();
          }

          void loadsAnother(dev.ondevice.optim.OptimizerState saved, Device device, Optimizer o) {
            Net model = new Net();
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            loadOther(saved, optimizer, o);
            model.toDevice(device);
          }
        }\
        """);
    Compilation c = Sources.compile(List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "the state loaded into optimizer here (by loadEpoch(saved, optimizer), line 31) is put"
                + " where model's parameters are now, and model.toDevice(device) (line 32) moves the"
                + " parameters without it")
        .inFile(f)
        .onLine(21);
  }

  @Test
  void aHelperThatMovesTheModelAfterTheLoadLeavesTheStateBehind() {
    JavaFileObject f =
        source(
            "Setup",
            AnalysedSources.IMPORTS
                + """
        import dev.ondevice.optim.Optimizer;
        import dev.ondevice.optim.Sgd;
        class Setup {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            List<dev.ondevice.Parameter> parameters() { return List.of(w); }
          }

          static final class Fabric {
            final Device device;
            Fabric(Device device) { this.device = device; }
            void setup(Model module, Optimizer optimizer) { module.toDevice(device); }
            void log(Model module, Optimizer optimizer) { }
          }

          void resume(dev.ondevice.optim.OptimizerState saved, Device device) {
            Fabric fabric = new Fabric(device);
            Net model = new Net();
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            optimizer.loadStateDict(saved); // expect: OptimizerStateLeftBehind
            fabric.setup(model, optimizer);
            optimizer.step();
          }

          void notMoved(dev.ondevice.optim.OptimizerState saved, Device device) {
            Fabric fabric = new Fabric(device);
            Net model = new Net();
            Sgd optimizer = new Sgd(model.parameters(), 0.1);
            optimizer.loadStateDict(saved);
            fabric.log(model, optimizer);
            optimizer.step();
          }
        }\
        """);
    Compilation c = Sources.compile(List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "the state loaded into optimizer is put where model's parameters are now, and"
                + " fabric.setup(model, optimizer) below moves the parameters without it:"
                + " optimizer.step() then fails")
        .inFile(f)
        .onLine(31);
  }

  @Test
  void anOptimizerMakingItsStateInItsConstructorIsBuiltAfterTheMove() {
    JavaFileObject f =
        source(
            "Nero",
            AnalysedSources.IMPORTS
                + """
        import dev.ondevice.optim.Optimizer;
        class Nero {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            List<dev.ondevice.Parameter> parameters() { return List.of(w); }
          }

          static class StateInConstructor extends Optimizer {
            final List<Tensor> expAvgSq = new java.util.ArrayList<>();
            StateInConstructor(List<dev.ondevice.Parameter> params) {
              for (dev.ondevice.Parameter p : params) {
                expAvgSq.add(Tensor.zerosLike(p));
              }
            }
          }

          static class NoState extends Optimizer {
            NoState(List<dev.ondevice.Parameter> params) {}
          }

          void before(Device device) {
            Net net = new Net();
            StateInConstructor optimizer = new StateInConstructor(net.parameters()); // expect: OptimizerStateLeftBehind
            net.toDevice(device);
            optimizer.step();
          }

          void after(Device device) {
            Net net = new Net();
            net.toDevice(device);
            StateInConstructor optimizer = new StateInConstructor(net.parameters());
            optimizer.step();
          }

          void noState(Device device) {
            Net net = new Net();
            NoState optimizer = new NoState(net.parameters());
            net.toDevice(device);
            optimizer.step();
          }
        }\
        """);
    Compilation c = Sources.compile(List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "the constructor of StateInConstructor makes optimizer's state where net's"
                + " parameters are now, and net.toDevice(device) below moves the parameters without it: optimizer.step() then"
                + " meets the state on the old device; build optimizer after moving net")
        .inFile(f)
        .onLine(34);
  }

  @Test
  void anOptimizerDeclaredInAClassAnalysedEarlierIsJudgedToo() {
    JavaFileObject f =
        source(
            "Nero",
            AnalysedSources.IMPORTS
                + """
        import dev.ondevice.optim.Optimizer;
        class Nero {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            List<dev.ondevice.Parameter> parameters() { return List.of(w); }
          }

          static class StateInConstructor extends Optimizer {
            final List<Tensor> expAvgSq = new java.util.ArrayList<>();
            StateInConstructor(List<dev.ondevice.Parameter> params) {
              for (dev.ondevice.Parameter p : params) {
                expAvgSq.add(Tensor.zerosLike(p));
              }
            }
          }
        }

        class Train {
          void before(Device device) {
            Nero.Net net = new Nero.Net();
            Nero.StateInConstructor optimizer = new Nero.StateInConstructor(net.parameters()); // expect: OptimizerStateLeftBehind
            net.toDevice(device);
            optimizer.step();
          }
        }\
        """);
    Compilation c = Sources.compile(List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
  }
}
