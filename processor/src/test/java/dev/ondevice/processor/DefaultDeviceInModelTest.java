package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * {@code DefaultDeviceInModel}: a tensor created on the default device in a model's code that meets
 * the model's state or is returned to its callers.
 */
class DefaultDeviceInModelTest {
  @Test
  void aFactoryPutIntoAnArrayForAPartIsReportedAtTheFactory() {
    AnalysedSources.check(
        "States",
        """
        class States {
          static final class Cell extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x, Tensor[] states) {
              return states[0].mul(w).add(x);
            }
          }

          static final class Net extends Model {
            final Cell cell = new Cell();

            Tensor forward(Tensor x) {
              Tensor state = Tensor.zeros(2, 2); // expect: DefaultDeviceInModel
              Tensor[] states = new Tensor[] {state, state};
              return cell.forward(x, states);
            }
          }
        }\
        """);
  }

  @Test
  void modelMethodsThatHandBackCpuTensorsOrTakeTensorsOnAnyDevice() {
    AnalysedSources.check(
        "Methods",
        """
        class Methods {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            @OnDevice("cpu") Tensor counts;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }

            Tensor predict(Tensor x) {
              return forward(x).cpu();
            }

            Tensor frequencies() {
              return this.counts;
            }

            void load(Tensor vectors) {
              Tensor scaled = vectors.mul(Tensor.scalar(2.0));
              w.copyFrom(scaled.add(Tensor.randn(2, 2)));
            }

            Tensor score(Tensor x, Tensor lengths) {
              float[] l = lengths.toFloatArray();
              return forward(x);
            }

            Tensor mixed(Tensor x, Tensor y) {
              return forward(x).add(y);
            }

            Tensor hidden() {
              return Tensor.randn(2, 2).add(w); // expect: DefaultDeviceInModel
            }
          }

          void run(Device device, Loader loader) {
            Net net = new Net();
            net.toDevice(device);
            for (Loader.Batch b : loader) {
              Tensor predicted = net.predict(b.inputs().to(device));
              Tensor hits = predicted.add(b.targets());
              double n = hits.sum().item();
            }
            Tensor f = net.frequencies().add(Tensor.randn(2, 2));
            net.load(Tensor.randn(2, 2));
            Tensor s = net.score(Tensor.randn(2, 2, device), Tensor.randn(2, 2));
            Tensor m = net.mixed(Tensor.randn(2, 2, device), Tensor.randn(2, 2)); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void aModelMethodReturningATensorMadeOnTheDefaultDevice() {
    JavaFileObject f =
        source(
            "Hidden",
            AnalysedSources.IMPORTS
                + """
        class Hidden {
          static class Rnn extends Model {
            dev.ondevice.Parameter w;

            Tensor initHidden(int batch) {
              return Tensor.zeros(batch, 4); // expect: DefaultDeviceInModel
            }

            Tensor initHiddenThroughALocal(int batch) {
              Tensor h = Tensor.zeros(batch, 4); // expect: DefaultDeviceInModel
              return h;
            }

            Tensor initOnDevice(int batch) {
              return Tensor.zeros(batch, 4, device());
            }

            Tensor ids() {
              return Tensor.of(1f, 2f);
            }

            Tensor scale() {
              return Tensor.zeros();
            }

            @OnDevice("cpu")
            Tensor hostHidden(int batch) {
              return Tensor.zeros(batch, 4);
            }

            static Tensor helper(int batch) {
              return Tensor.zeros(batch, 4);
            }
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "Tensor.zeros(batch, 4) creates a tensor on the CPU (the default device) that"
                + " initHidden returns: once the model has moved, its callers get it on the CPU beside the model's tensors;"
                + " create it on the model's device, passing device() to the factory, or declare initHidden"
                + " @OnDevice(\"cpu\") if it is meant to be on the CPU");
  }

  @Test
  void aTensorMadeOnTheDefaultDeviceOnSomePathsInAModel() {
    JavaFileObject f =
        source(
            "SomePaths",
            AnalysedSources.IMPORTS
                + """
        class SomePaths {
          static class Rnn extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x, Tensor h) {
              if (h == null) {
                h = Tensor.zeros(2, 8); // expect: warning DefaultDeviceInModel
              }
              return x.mul(w).add(h);
            }

            Tensor scaled(Tensor x, Tensor h) {
              if (h == null) {
                h = Tensor.randn(2, 8); // expect: warning DefaultDeviceInModel
              }
              Tensor g = h.mul(Tensor.scalar(2.0)).detach();
              return x.mul(w).add(g);
            }

            Tensor guarded(Tensor x, Tensor h) {
              if (h == null) {
                h = Tensor.zeros(2, 8);
              }
              if (!h.device().equals(x.device())) {
                h = h.to(x.device());
              }
              return x.mul(w).add(h);
            }

            Tensor init(Tensor prev, int b) {
              return prev == null ? Tensor.zeros(b, 8) : prev.detach(); // expect: warning DefaultDeviceInModel
            }

            Tensor pick(boolean lstm, int b) {
              return lstm ? Tensor.zeros(2 * b, 8) : Tensor.zeros(b, 8); // expect: DefaultDeviceInModel
            }

            Tensor onDevice(Tensor x, Tensor h) {
              if (h == null) {
                h = Tensor.zeros(2, 8, device());
              }
              return x.mul(w).add(h);
            }

            Tensor scalars(Tensor x, boolean half) {
              Tensor s = half ? Tensor.scalar(0.5) : Tensor.zeros();
              return x.mul(w).mul(s);
            }
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadWarningContaining(
            "Tensor.zeros(2, 8) creates a tensor on the CPU (the default device) inside"
                + " Rnn.forward, where it meets x.mul(w) on the model's device on the paths where h is this tensor; create it"
                + " there: pass x.device() to the factory");
    assertThat(c)
        .hadWarningContaining(
            "that init returns on some paths: once the model has moved, its callers get it"
                + " on the CPU beside the model's tensors; create it on the model's device, passing device() to the factory");
    assertThat(c)
        .hadErrorContaining(
            "Tensor.zeros(2 * b, 8) creates a tensor on the CPU (the default device) that"
                + " pick returns: once");
  }

  @Test
  void modelMethodsReturningCpuTensorsTheirCallersTakeOnTheCpu() {
    JavaFileObject f =
        source(
            "Returns",
            AnalysedSources.IMPORTS
                + """
        class Returns {
          static class Encoding extends Model {
            @dev.ondevice.annotations.Buffer Tensor pe;
            dev.ondevice.Parameter w;

            Encoding() {
              pe = table(8).add(shared(8));
            }

            private Tensor table(int n) {
              return Tensor.zeros(n, 4);
            }

            Tensor shared(int n) {
              return Tensor.zeros(n, 4); // expect: DefaultDeviceInModel
            }

            private Tensor converted(int n) {
              return Tensor.randn(n, 4);
            }

            Tensor half(Tensor x) {
              return x.mul(converted(2).to(java.util.Objects.requireNonNull(x.device())));
            }

            private Tensor mask(int n) {
              return Tensor.randn(n, n);
            }

            Tensor forward(Tensor x) {
              return x.mul(w).add(mask(2).to(x.device())).add(pe); // expect: warning CreateThenMove
            }
          }

          static class Parent extends Model {
            dev.ondevice.Parameter w;

            @OnDevice("cpu")
            Tensor ids(int n) {
              return Tensor.zeros(n, 1);
            }
          }

          static class Child extends Parent {
            @Override
            Tensor ids(int n) {
              return Tensor.zeros(n, 2);
            }
          }

          static class Stateless extends Model {
            Tensor forward(Tensor x) {
              return Tensor.zeros(2, 2); // expect: DefaultDeviceInModel
            }
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining("create it on the model's device, passing x.device() to the factory");
  }

  @Test
  void messagesNameAnonymousModelsByTheirBaseClass() {
    JavaFileObject f =
        source(
            "Anonymous",
            AnalysedSources.IMPORTS
                + """
        class Anonymous {
          static class Base extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x) {
              return x;
            }
          }

          @SuppressWarnings("LocalModelClass")
          static Model head() {
            return new Base() {
              @Override
              Tensor forward(Tensor x) {
                return super.forward(x).add(Tensor.randn(2, 2)); // expect: DefaultDeviceInModel
              }
            };
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining("inside (anonymous Base).forward, where it meets super.forward(x)")
        .inFile(f)
        .onLine(25);
  }

  @Test
  void defaultDeviceInAModelAndStaticConstants() {
    AnalysedSources.check(
        "Models",
        """
        class Models {
          static final Tensor SCALE = Tensor.of(2f);

          static class Net extends Model {
            Tensor forward(Tensor x) {
              Tensor mask = Tensor.zeros(2, 2); // expect: DefaultDeviceInModel
              Tensor good = Tensor.zeros(2, 2, x.device());
              return x.add(mask).add(good).mul(SCALE); // expect: StaticTensorConstant
            }
          }
        }\
        """);
  }

  @Test
  void everyCulpritOfOneOpIsReported() {
    AnalysedSources.check(
        "Culprits",
        """
        class Culprits {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              Tensor a = Tensor.zeros(2, 2); // expect: DefaultDeviceInModel
              Tensor b = Tensor.randn(2, 2); // expect: DefaultDeviceInModel
              return Tensor.cat(List.of(x.mul(w), a, b), 0);
            }
          }

          static class Decoder extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x, Tensor mask) {
              return x.mul(w).mul(mask);
            }
          }

          static class Forecaster extends Model {
            final Decoder decoder = new Decoder();

            Tensor forward(Tensor x) {
              Tensor pred = Tensor.zeros(2, 2); // expect: DefaultDeviceInModel
              Tensor mask = Tensor.randn(2, 2); // expect: DefaultDeviceInModel
              return decoder.forward(pred, mask);
            }
          }
        }\
        """);
  }

  @Test
  void defaultDeviceSurvivesOpsAndDiscardedFactoriesGetNoBogusAssignment() {
    JavaFileObject f =
        source(
            "Origins",
            AnalysedSources.IMPORTS
                + """
        class Origins {
          static class Net extends Model {
            Tensor forward(Tensor x) {
              Tensor noise = Tensor.randn(2, 2).mul(Tensor.scalar(0.1)); // expect: DefaultDeviceInModel
              return x.add(noise);
            }
          }

          void run(Device device) {
            Tensor.zeros(2, 2, device); // expect: DiscardedTensorOp
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "Tensor.zeros(2, 2, device) returns a new tensor and its result is discarded, so"
                + " this statement does nothing; assign its result to a variable")
        .inFile(f)
        .onLine(21);
  }

  @Test
  void aHiddenStateCreatedOnTheCpuBeforeALoopInAModelIsReported() {
    AnalysedSources.check(
        "Recurrent",
        """
        class Recurrent extends Model {
          dev.ondevice.Parameter w;

          Tensor forward(Tensor x, Tensor steps) {
            Tensor h = Tensor.zeros(2, 2); // expect: DefaultDeviceInModel
            for (int t = 0; t < 3; t++) {
              h = x.mul(w).add(h);
            }
            return h;
          }
        }\
        """);
  }
}
