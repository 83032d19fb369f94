package dev.ondevice.processor;

import static dev.ondevice.processor.AnalysedSources.check;

import org.junit.jupiter.api.Test;

/**
 * A method whose every call in its class is seen has its tensor parameters where those calls put
 * them: the bodies are interpreted callers first.
 */
class CallSitesTest {
  @Test
  void aHelperGivenDeviceTensorsMeetsItsCpuFactoryThere() {
    check("Accuracy", """
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
    check("Unjudged", """
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
    check("Results", """
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
}
