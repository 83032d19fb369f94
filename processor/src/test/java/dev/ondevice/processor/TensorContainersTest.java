package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.AnalysedSources.check;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * Tensors keep their device through the JDK's containers: lists, maps, iteration, {@code Optional}.
 */
class TensorContainersTest {
  @Test
  void aTensorKeepsItsDeviceThroughListsAndMaps() {
    check(
        "Held",
        """
        class Held {
          void run(Device device, Tensor w) {
            Tensor onDevice = Tensor.randn(2, 2, device);
            List<Tensor> features = new java.util.ArrayList<>();
            features.add(Tensor.randn(2, 2));
            Tensor sum = onDevice.add(features.get(0)); // expect: MixedDevices
            Map<String, Tensor> stats = new java.util.HashMap<>();
            stats.put("mean", Tensor.zeros(2, 2, device));
            Tensor centred = onDevice.add(stats.get("mean"));
            for (Tensor f : features) {
              Tensor g = onDevice.mul(f); // expect: MixedDevices
            }
            Tensor joined = Tensor.cat(features, 0).add(onDevice); // expect: MixedDevices
            java.util.Optional<Tensor> maybe = java.util.Optional.of(Tensor.randn(2, 2));
            Tensor m = onDevice.add(maybe.get()); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void aContainerChangedOutOfSightOrHoldingBothIsNotReported() {
    check(
        "Changed",
        """
        class Changed {
          static void moveAll(List<Tensor> ts, Device device) {
            ts.replaceAll(t -> t.to(device));
          }

          void run(Device device) {
            Tensor onDevice = Tensor.randn(2, 2, device);
            List<Tensor> a = new java.util.ArrayList<>();
            a.add(Tensor.randn(2, 2));
            moveAll(a, device);
            Tensor x = onDevice.add(a.get(0));
            List<Tensor> b = new java.util.ArrayList<>();
            b.add(Tensor.randn(2, 2));
            b.replaceAll(t -> t.to(device));
            Tensor y = onDevice.add(b.get(0));
            List<Tensor> c = new java.util.ArrayList<>(List.of(Tensor.randn(2, 2), onDevice));
            Tensor z = onDevice.add(c.get(1));
            List<Tensor> moved = new java.util.ArrayList<>();
            for (Tensor t : a) {
              moved.add(t.to(device));
            }
            Tensor u = onDevice.add(moved.get(0));
          }
        }\
        """);
  }

  @Test
  void aListFilledWithCpuAndDeviceTensorsIsReportedWhereTheCpuOneIsPut() {
    JavaFileObject f =
        source(
            "Masks",
            AnalysedSources.IMPORTS
                + """
        class Masks {
          static Tensor mask(Tensor input, int f) {
            return Tensor.randn(2, 4, input.device()).mul(input);
          }

          static Tensor masks(Tensor input, List<Integer> features, int skipped) {
            List<Tensor> parts = new java.util.ArrayList<>();
            for (int f : features) {
              if (f == skipped) {
                parts.add(Tensor.zeros(2, 4)); // expect: MixedDevices
                continue;
              }
              parts.add(mask(input, f));
            }
            return Tensor.stack(parts);
          }

          static Tensor either(Tensor input, boolean cpu) {
            List<Tensor> parts = new java.util.ArrayList<>();
            if (cpu) {
              parts.add(Tensor.zeros(3));
            } else {
              parts.add(input.mul(input));
            }
            return Tensor.cat(parts, 0);
          }

          static Tensor replaced(Tensor input, Device device) {
            List<Tensor> parts = new java.util.ArrayList<>();
            parts.add(Tensor.zeros(3));
            parts.set(0, parts.get(0).to(device));
            parts.add(input);
            return Tensor.cat(parts, 0);
          }

          static Tensor cleared(Tensor input) {
            List<Tensor> parts = new java.util.ArrayList<>();
            parts.add(Tensor.zeros(3));
            parts.clear();
            parts.add(input);
            return Tensor.cat(new java.util.ArrayList<>(parts), 0);
          }

          void run(Device device, List<Integer> features) {
            Tensor x = Tensor.randn(2, 4, device);
            Tensor a = masks(x, features, 1);
            Tensor b = either(x, false);
            Tensor c = replaced(x, device);
            Tensor d = cleared(x);
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "stack (line 26) joins tensors put into one container, and they are on two"
                + " devices: Tensor.zeros(2, 4) is put into it here on the CPU, and mask(input, f) (line 24) on device;"
                + " the op fails when they differ. Create it there: Tensor.zeros(2, 4, input.device())")
        .inFile(f)
        .onLine(21);
  }

  @Test
  void aMapOfCpuTensorsGivenToAModelIsReportedWhereEachWasPut() {
    JavaFileObject f =
        source(
            "Graphs",
            AnalysedSources.IMPORTS
                + """
        class Graphs {
          record GraphBatch(Tensor pos, Tensor attr) {}

          static class Potential extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Map<String, Tensor> input) {
              return input.get("pos").mul(w).add(input.get("attr"));
            }
          }

          static GraphBatch convert(int n) {
            return new GraphBatch(Tensor.randn(2, 2), Tensor.zeros(2, 2));
          }

          static Map<String, Tensor> toDict(GraphBatch b, Device device) {
            Tensor pos = b.pos(); // expect: MixedDevices
            Map<String, Tensor> input = new java.util.HashMap<>();
            input.put("pos", pos);
            input.put("attr", b.attr()); // expect: MixedDevices
            return input;
          }

          static Map<String, Tensor> moved(GraphBatch b, Device device) {
            Map<String, Tensor> input = new java.util.HashMap<>();
            input.put("pos", b.pos());
            input.put("pos", b.pos().to(device));
            input.put("attr", b.attr().to(device));
            return input;
          }

          void run(Device device) {
            Potential model = new Potential();
            model.toDevice(device);
            GraphBatch b = convert(3);
            Tensor e = model.forward(toDict(b, device));
            Tensor g = model.forward(moved(b, device));
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "b.pos() is on the CPU here and is put into a container (line 30) that forward (line"
                + " 47) gets as toDict(b, device), while model is on device; in device-agnostic code"
                + " this runs only when device is the CPU, and fails on the GPU machine. A container"
                + " has no to(): move each tensor before it is put, b.pos().to(device)")
        .inFile(f)
        .onLine(28);
    assertThat(c)
        .hadErrorContaining("b.attr() is on the CPU here and is put into a container (line 31)")
        .inFile(f)
        .onLine(31);
  }

  @Test
  void aModelMethodsMapOfTensorsIsOnTheModelsDevice() {
    check(
        "Cache",
        """
        class Cache {
          static class Attention extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x, Map<String, Tensor> cache) {
              Tensor k = cache.get("k");
              double end = cache.get("end").item(); // expect: warning HostSyncInLoop
              return x.mul(w).add(k);
            }
          }
        }\
        """);
  }

  @Test
  void recordsAndArraysKeepTheirTensorsDevice() {
    check(
        "Records",
        """
        class Records {
          record Example(Tensor inputs, Tensor labels) {}

          static Tensor[] pair(Device device) {
            return new Tensor[] {Tensor.randn(2, 2, device), Tensor.zeros(2, 2, device)};
          }

          void run(Device device) {
            Tensor onDevice = Tensor.randn(2, 2, device);
            Example e = new Example(Tensor.randn(2, 2), Tensor.randn(2, 2));
            Tensor x = onDevice.add(e.inputs()); // expect: MixedDevices
            Tensor[] parts = new Tensor[2];
            parts[0] = Tensor.randn(2, 2);
            Tensor y = onDevice.mul(parts[0]); // expect: MixedDevices
            Tensor[] moved = pair(device);
            Tensor z = onDevice.mul(moved[1]);
            Example both = new Example(onDevice, Tensor.randn(2, 2));
            Tensor u = onDevice.add(both.labels());
          }
        }\
        """);
  }

  @Test
  void anArrayMadeWithItsElementsKeepsEachOnesDevice() {
    check(
        "Tuples",
        """
        class Tuples {
          static Tensor[] meanAndCount(Device device) {
            return new Tensor[] {Tensor.randn(2, 2, device), Tensor.zeros(2, 2)};
          }

          void run(Device device, int i) {
            Tensor onDevice = Tensor.randn(2, 2, device);
            Tensor[] r = meanAndCount(device);
            Tensor a = onDevice.mul(r[0]);
            Tensor b = onDevice.mul(r[1]); // expect: MixedDevices
            Tensor c = onDevice.mul(r[i]); // element i: on one device or the other, not known
            r[1] = r[1].to(device);
            Tensor d = onDevice.mul(r[1]);
          }
        }\
        """);
  }

  @Test
  void resultsAreFollowedFiveCallsDeep() {
    check(
        "Deep",
        """
        class Deep {
          static final class Steps {
            final Tensor table = Tensor.randn(2, 2);

            private Tensor[] one(Tensor x) { return new Tensor[] {two(x), x}; }
            private Tensor two(Tensor x) { return three(x).detach(); }
            private Tensor three(Tensor x) { return four(x).detach(); }
            private Tensor four(Tensor x) { return five(x).detach(); }
            private Tensor five(Tensor x) { return x.detach(); }

            private static Tensor lookup(Tensor table, Tensor x) {
              return table.mul(x);
            }

            Tensor loop(Tensor noise) {
              Tensor x = noise;
              Tensor y = null;
              for (int i = 0; i < 3; i++) {
                x = one(x)[0];
                y = lookup(table, x); // expect: MixedDevices
              }
              return y;
            }
          }

          void run(Device device) {
            new Steps().loop(Tensor.randn(2, 2, device));
          }
        }\
        """);
  }

  @Test
  void aTensorReadFromAMapOfCpuTensorsIsReportedWhereItIsRead() {
    JavaFileObject f =
        source(
            "Perplexity",
            AnalysedSources.IMPORTS
                + """
        class Perplexity {
          static class Lm extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor ids) {
              return ids.mul(w);
            }
          }

          static Map<String, Tensor> tokenize(int n) {
            Map<String, Tensor> inputs = new java.util.HashMap<>();
            inputs.put("input_ids", Tensor.randn(2, 2));
            return inputs;
          }

          void score(Device device) {
            Lm model = new Lm();
            model.toDevice(device);
            Map<String, Tensor> inputs = tokenize(2);
            Map<String, Tensor> moved = new java.util.HashMap<>();
            moved.put("input_ids", inputs.get("input_ids").to(device));
            Tensor logits = model.forward(moved.get("input_ids"));
            Tensor label = inputs.get("input_ids"); // expect: MixedDevices
            Tensor shifted = label.detach();
            Tensor loss = logits.add(shifted);
            Tensor good = logits.add(moved.get("input_ids"));
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "label is read here from a container of tensors on the CPU, and add (line 36) uses it"
                + " with logits, which is on device; in device-agnostic code this runs only when"
                + " device is the CPU, and fails on the GPU machine. Move it where it is read:"
                + " inputs.get(\"input_ids\").to(device)")
        .inFile(f)
        .onLine(34);
  }
}
