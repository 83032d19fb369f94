package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * {@code ModelNotMoved}: a model never moved, or a part replaced after the move, used with tensors
 * on a device.
 */
class ModelNotMovedTest {
  @Test
  void aModelThatAMethodBuildsAndReturnsIsOnTheCpuUntilMoved() {
    AnalysedSources.check(
        "Builders",
        """
        class Builders {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }
          }

          static Net build() {
            return new Net();
          }

          static Net buildLocal() {
            Net net = new Net();
            net.forward(Tensor.randn(2, 2));
            return net;
          }

          static Net buildMoved(Device device) {
            Net net = new Net();
            net.toDevice(device);
            return net;
          }

          Net overridable() {
            return new Net();
          }

          void run(Device device) {
            Net a = build();
            a.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
            Net b = buildLocal();
            b.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
            Net c = build();
            c.toDevice(device);
            c.forward(Tensor.randn(2, 2, device));
            Net d = buildMoved(device);
            d.forward(Tensor.randn(2, 2, device));
            Net e = overridable();
            e.forward(Tensor.randn(2, 2, device));
          }
        }\
        """);
  }

  @Test
  void aPartReplacedAfterTheModelMovedIsOnTheCpu() {
    JavaFileObject f =
        source(
            "Finetune",
            AnalysedSources.IMPORTS
                + """
        class Finetune {
          static class Head extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }
          }

          static class Net extends Model {
            Head fc = new Head();

            Tensor forward(Tensor x) {
              return fc.forward(x);
            }
          }

          void run(Device device) {
            Net stale = new Net();
            stale.toDevice(device);
            stale.fc = new Head();
            stale.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
            Net again = new Net();
            again.toDevice(device);
            again.fc = new Head();
            again.toDevice(device);
            again.forward(Tensor.randn(2, 2, device));
            Net part = new Net();
            part.toDevice(device);
            part.fc = new Head();
            part.fc.toDevice(device);
            part.forward(Tensor.randn(2, 2, device));
            Net before = new Net();
            before.fc = new Head();
            before.toDevice(device);
            before.forward(Tensor.randn(2, 2, device));
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "stale.fc was replaced by a new part made on the CPU after stale was moved: its"
                + " parameters are on the CPU while Tensor.randn(2, 2, device) is on device; move the model again after"
                + " replacing it: stale.toDevice(device)");
  }

  @Test
  void aModelMovedByAFunctionItIsGivenIsNotReportedAsNeverMoved() {
    AnalysedSources.check(
        "Applied",
        """
        class Applied {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }

            void each(java.util.function.Consumer<Net> f) {
              f.accept(this);
            }
          }

          void run(Device device) {
            Net moved = new Net();
            moved.each(m -> m.toDevice(device));
            moved.forward(Tensor.randn(2, 2, device));
            Net printed = new Net();
            printed.each(m -> System.out.println(m));
            printed.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
          }
        }\
        """);
  }

  @Test
  void aModelWhoseOnlyStateIsAMapOfSubmodulesIsOnTheCpuUntilMoved() {
    AnalysedSources.check(
        "Containers",
        """
        class Containers {
          static class Block extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x) {
              return x;
            }
          }

          static class ByName extends Model {
            final java.util.LinkedHashMap<String, Block> blocks = new java.util.LinkedHashMap<>();
            Tensor forward(Tensor x) {
              return x;
            }
          }

          static class Stateless extends Model {
            Tensor forward(Tensor x) {
              return x;
            }
          }

          void run(Device device) {
            ByName byName = new ByName();
            Tensor a = byName.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
            Stateless stateless = new Stateless();
            Tensor b = stateless.forward(Tensor.randn(2, 2, device));
          }
        }\
        """);
  }

  @Test
  void statelessLayersWorkOnAnyDeviceAndContainersTakeTheirLayersDevice() {
    AnalysedSources.check(
        "Layers",
        """
        class Layers {
          static class Flat extends Model {
            Tensor forward(Tensor x) {
              return x;
            }
          }

          static class Dense extends Model {
            dev.ondevice.Parameter w;
            Dense(Device device) {
            }
            Dense() {
            }
            Tensor forward(Tensor x) {
              return x;
            }
          }

          static class Stack extends Model {
            final Dense first;
            Stack(Dense first) {
              this.first = first;
            }
            Tensor forward(Tensor x) {
              return first.forward(x);
            }
          }

          void run(Device device) {
            Tensor x = Tensor.randn(2, 2, device);
            Tensor a = new Flat().forward(x);
            Tensor b = new Stack(new Dense(device)).forward(x);
            Tensor c = new Stack(new Dense()).forward(x); // expect: ModelNotMoved
          }
        }\
        """);
  }

  @Test
  void modelsMovedThroughAnAliasOrByTheirOwnMethodsAreNotReported() {
    AnalysedSources.check(
        "Aliases",
        """
        class Aliases {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x;
            }

            void deploy(Device d) {
              toDevice(d);
              Tensor probe = forward(Tensor.randn(2, 2, d));
            }

            void describe() {
              System.out.println("net");
            }
          }

          Tensor viaArray(Device device) {
            Net encoder = new Net();
            Net decoder = new Net();
            for (Model m : new Model[] {encoder, decoder}) {
              m.toDevice(device);
            }
            return decoder.forward(encoder.forward(Tensor.randn(2, 2, device)));
          }

          Tensor viaVariable(Device device) {
            Net net = new Net();
            Model m = net;
            m.toDevice(device);
            return net.forward(Tensor.randn(2, 2, device));
          }

          Tensor byItsOwnMethod(Device device) {
            Net net = new Net();
            net.deploy(device);
            return net.forward(Tensor.randn(2, 2, device));
          }

          Tensor notMovedByAMethodThatDoesNotMove(Device device) {
            Net net = new Net();
            net.describe();
            return net.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
          }

          Tensor movedThroughTheOriginal(Device device, boolean big) {
            Net net = new Net();
            Model alias = (Model) net;
            net.toDevice(device);
            Net small = new Net();
            Net large = new Net();
            Net chosen = big ? large : small;
            chosen.toDevice(device);
            Net first = new Net();
            Net picked = switch (big ? 1 : 0) {
              case 0 -> first;
              default -> new Net();
            };
            picked.toDevice(device);
            return first.forward(large.forward(Tensor.randn(2, 2, device)));
          }

          static class Trainer extends Model {
            dev.ondevice.Parameter w;

            Tensor fit(Tensor x, Device d) {
              toDevice(d);
              return x;
            }

            Tensor forward(Tensor x) {
              return helper(x);
            }

            Tensor helper(Tensor x) {
              return x;
            }
          }

          Tensor byAMethodTakingTensors(Device device) {
            Trainer t = new Trainer();
            t.fit(Tensor.randn(2, 2, device), device);
            return t.forward(Tensor.randn(2, 2, device));
          }

          Tensor notByHelpersThatDoNotMove(Device device) {
            Trainer t = new Trainer();
            t.helper(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
            return t.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
          }

          Tensor printedOrRestored(Device device) {
            Net net = new Net();
            System.out.println(net);
            dev.ondevice.io.Checkpoint.restore(null, net, null, null);
            return net.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
          }
        }\
        """);
  }

  @Test
  void aModelMovedInALambdaMayBeOnEitherDevice() {
    AnalysedSources.check(
        "LambdaMove",
        """
        class LambdaMove {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x) {
              return x;
            }
          }

          static void timed(Runnable r) {
            r.run();
          }

          Tensor moved(Device device) {
            Net net = new Net();
            timed(() -> net.toDevice(device));
            return net.forward(Tensor.randn(2, 2, device));
          }

          Tensor notMoved(Device device) {
            Net net = new Net();
            timed(() -> System.out.println(net));
            return net.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
          }
        }\
        """);
  }

  @Test
  void aModelMovedThroughAnAnonymousClassOrAMethodReferenceMayBeOnEitherDevice() {
    AnalysedSources.check(
        "IndirectMoves",
        """
        class IndirectMoves {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x) {
              return x;
            }
          }

          Tensor anonymous(Device device) {
            Net net = new Net();
            Runnable move = new Runnable() {
              public void run() {
                net.toDevice(device);
              }
            };
            move.run();
            return net.forward(Tensor.randn(2, 2, device));
          }

          Tensor reference(Device device) {
            Net net = new Net();
            java.util.function.Consumer<Device> mover = net::toDevice;
            mover.accept(device);
            return net.forward(Tensor.randn(2, 2, device));
          }
        }\
        """);
  }

  @Test
  void aCopyOfTheWeightsBuiltBeforeTheModelMovesIsLeftBehind() {
    JavaFileObject f =
        source(
            "Swag",
            AnalysedSources.IMPORTS
                + """
        class Swag {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            List<dev.ondevice.Parameter> parameters() {
              return List.of(w);
            }

            Tensor forward(Tensor x) {
              return x.mul(w);
            }
          }

          static class Averaged extends Model {
            final Net module = new Net();

            Averaged(Net model) {
              copy(model);
            }

            private void copy(Net source) {
              for (dev.ondevice.Parameter p : source.parameters()) {
                module.w = p;
              }
            }

            void update(Net model) {}
          }

          static class Wrapper extends Model {
            final Net inner;

            Wrapper(Net model) {
              inner = model;
            }

            void run() {}
          }

          void before(Device device) {
            Net net = new Net();
            Averaged swag = new Averaged(net); // expect: ModelNotMoved
            net.toDevice(device);
            swag.update(net);
          }

          void movedToo(Device device) {
            Net net = new Net();
            Averaged swag = new Averaged(net);
            net.toDevice(device);
            swag.toDevice(device);
            swag.update(net);
          }

          void after(Device device) {
            Net net = new Net();
            net.toDevice(device);
            Averaged swag = new Averaged(net);
            swag.update(net);
          }

          void wrapped(Device device) {
            Net net = new Net();
            Wrapper w = new Wrapper(net);
            net.toDevice(device);
            w.run();
          }

          void neverUsed(Device device) {
            Net net = new Net();
            Averaged swag = new Averaged(net);
            net.toDevice(device);
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "swag is built here from net's weights while net is on the CPU, and"
                + " net.toDevice(device) (line 54) moves net but not swag: swag's copy stays on the"
                + " CPU, and swag.update(net) (line 55) mixes it with net's on the device. Move swag"
                + " as well (swag.toDevice(device)), or build it after the move")
        .inFile(f)
        .onLine(53);
  }
}
