package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.AnalysedSources.check;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * A method whose every call in its class is seen has its tensor parameters where those calls put
 * them: the bodies are interpreted callers first.
 */
class CallSitesTest {
  @Test
  void aHelperGivenDeviceTensorsMeetsItsCpuFactoryThere() {
    check(
        "Accuracy",
        """
        class Accuracy {
          static Tensor accuracy(Tensor preds, Tensor y) {
            Tensor correct = preds.mul(y);
            return correct.sum().mul(Tensor.of(1f, 2f)); // expect: MixedDevices
          }

          void evaluate(Loader loader, Device device) {
            for (Loader.Batch b : loader) {
              Tensor acc = accuracy(b.inputs().to(device), b.targets().to(device));
            }
          }
        }\
        """);
  }

  @Test
  void helpersCalledFromElsewhereOrWithBothAreNotJudgedByTheirCalls() {
    check(
        "Unjudged",
        """
        class Unjudged {
          public static Tensor shared(Tensor preds) {
            return preds.mul(Tensor.of(1f, 2f));
          }

          static Tensor both(Tensor preds) {
            return preds.mul(Tensor.of(1f, 2f));
          }

          static Tensor recursive(Tensor preds, int n) {
            return n == 0 ? preds.mul(Tensor.of(1f, 2f)) : recursive(preds, n - 1);
          }

          void run(Device device, Tensor cpu) {
            Tensor onDevice = cpu.to(device);
            shared(onDevice);
            both(onDevice);
            both(cpu);
            recursive(onDevice, 2);
          }
        }\
        """);
  }

  @Test
  void aCallOfTheClassGivesWhatItsBodyReturnsForItsArguments() {
    check(
        "Results",
        """
        class Results {
          static Map<String, Tensor> preprocess(int n) {
            Map<String, Tensor> inputs = new java.util.HashMap<>();
            inputs.put("ids", Tensor.zeros(n, n));
            inputs.put("mask", Tensor.zeros(n, n));
            return inputs;
          }

          static Tensor scale(Tensor x) {
            return x.mul(Tensor.scalar(2.0));
          }

          void run(Device device) {
            Map<String, Tensor> in = preprocess(2);
            Tensor ids = in.get("ids").to(device);
            Tensor masked = ids.mul(in.get("mask")); // expect: MixedDevices
            Tensor scaled = scale(ids).add(Tensor.randn(2, 2, device));
            Tensor cpu = scale(Tensor.zeros(2, 2)).add(ids); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void aCpuTensorGivenToAMethodThatMeetsTheDeviceWithItIsReportedAtTheCall() {
    JavaFileObject f =
        source(
            "Agent",
            AnalysedSources.IMPORTS
                + """
        class Agent {
          static class Net extends Model {
            Tensor forward(Tensor x) { return x; }
          }
          final Net q;
          Agent(Net q) { this.q = q; }

          Tensor act(Tensor state) {
            return q.forward(state).mul(Tensor.of(1f, 2f)); // expect: MixedDevices
          }

          Tensor scaled(Tensor state, Device device) {
            return act(state);
          }

          static void run(Device device, float[] state) {
            Net net = new Net();
            net.toDevice(device);
            Agent agent = new Agent(net);
            agent.act(Tensor.of(state).to(device));
            agent.act(Tensor.of(state)); // expect: MixedDevices
            agent.scaled(Tensor.of(state), device); // expect: MixedDevices
          }
        }\
        """);
    Compilation c = Sources.compile(List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    // The model field is where the caller moved the model it gave the constructor; the CPU state
    // is the caller's to move, reported at its call, also through a method that hands it on.
    assertThat(c)
        .hadErrorContaining(
            "act gets Tensor.of(state) on the CPU and uses it in forward (line 20) with q on"
                + " device; move it: Tensor.of(state).to(device)")
        .inFile(f)
        .onLine(32);
    assertThat(c)
        .hadErrorContaining(
            "scaled gets Tensor.of(state) on the CPU and uses it in act (line 24) with q on"
                + " device; move it: Tensor.of(state).to(device)")
        .inFile(f)
        .onLine(33);
    // In act itself, a device tensor meets the CPU one it makes: reported there.
    assertThat(c).hadErrorContaining("mul gets tensors on two devices").inFile(f).onLine(20);
  }

  @Test
  void aTrainersModelFieldIsWhereItsConstructorMovesIt() {
    JavaFileObject f =
        source(
            "Trainer",
            AnalysedSources.IMPORTS
                + """
        class Trainer {
          static class Net extends Model {
            Tensor forward(Tensor x) { return x; }
          }
          final Net model;
          final Device device;

          Trainer(Net model, Device device) {
            this.model = model;
            this.device = device;
            model.toDevice(device);
          }

          Tensor predict(Tensor x) {
            return model.forward(x);
          }

          void evaluate(Loader loader) {
            for (Loader.Batch b : loader) {
              model.forward(b.inputs()); // expect: TargetsNotMoved
              predict(b.inputs()); // expect: TargetsNotMoved
              predict(b.inputs().to(device));
            }
          }
        }\
        """);
    Compilation c = Sources.compile(List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "b.inputs() is still on the CPU: it comes from the batch, and predict uses it in"
                + " forward (line 26) with model on device; move every tensor of the batch before using it:"
                + " b.inputs().to(device)")
        .inFile(f)
        .onLine(32);
  }

  @Test
  void aModelMovedToAStaticDeviceFieldIsOnThatDevice() {
    JavaFileObject f =
        source(
            "Configured",
            AnalysedSources.IMPORTS
                + """
        class Configured {
          static final class Constants {
            static Device device = Device.cudaIfAvailable();
          }
          static class Net extends Model {
            Tensor forward(Tensor x) { return x; }
          }
          final Net model;

          Configured(Net model) {
            model.toDevice(Constants.device);
            this.model = model;
          }

          Tensor validate(Loader loader) {
            Loader.Batch b = loader.iterator().next();
            Tensor input = b.inputs();
            return model.forward(input); // expect: TargetsNotMoved
          }
        }\
        """);
    Compilation c = Sources.compile(List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "input is still on the CPU: it comes from the batch, and model is on"
                + " Constants.device; move every tensor of the batch, the targets as well as the inputs: input ="
                + " input.to(Constants.device)")
        .inFile(f)
        .onLine(29);
  }

  @Test
  void aModelWhoseEveryMoveNamesOneStaticDeviceFieldMakesItsTensorsThere() {
    check(
        "Global",
        """
        class Global {
          static Device device;

          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w).add(Tensor.zeros(2, 2, device));
            }
          }

          static class Other extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w).add(Tensor.zeros(2, 2, device)); // expect: warning MixedDevices
            }
          }

          void run(Device given) {
            device = given;
            Net net = new Net();
            net.toDevice(device);
            Other other = new Other();
            other.toDevice(given);
          }
        }\
        """);
  }

  @Test
  void theFixInACalleeNamesADeviceInScopeThere() {
    JavaFileObject f =
        source(
            "Schedules",
            AnalysedSources.IMPORTS
                + """
        class Schedules {
          static final class Diffusion {
            static Tensor lookup(Tensor table, Tensor t, Tensor x) {
              return table.indexSelect(0, t).to(x.device()); // expect: MixedDevices
            }
          }

          static final class Sampler {
            final Tensor table = Tensor.randn(2, 2);

            Tensor sample(Tensor x, Tensor t) {
              return Diffusion.lookup(table, t, x);
            }
          }

          void run(Device device) {
            new Sampler().sample(Tensor.randn(2, 2, device), Tensor.randn(2, 2, device));
          }
        }\
        """);
    Compilation c = Sources.compile(List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "indexSelect gets tensors on two devices: table is on the CPU and t (argument"
                + " 'index') is on device; in device-agnostic code this runs only when device is the CPU, and fails on the GPU"
                + " machine. Move table: table.to(t.device())")
        .inFile(f)
        .onLine(15);
  }

  @Test
  void aMethodThatMovesSomeOfItsInputsIsTheOneToMoveTheOthers() {
    check(
        "Pipeline",
        """
        class Pipeline {
          static class Lm extends Model {
            Tensor forward(Tensor ids, Tensor mask) { return ids.mul(mask); }
          }
          final Lm model;
          Pipeline(Lm model) { this.model = model; }

          Tensor forward(Tensor ids, Tensor mask) {
            return model.forward(ids.to(model.device()), mask); // expect: MixedDevices
          }

          static void run(Device device) {
            Lm lm = new Lm();
            lm.toDevice(device);
            new Pipeline(lm).forward(Tensor.of(1f), Tensor.of(1f));
          }
        }\
        """);
  }
}
