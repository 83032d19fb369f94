package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * {@code MixedDevices}: tensors on different devices meeting in an op, a model call or a contract,
 * and the parameters of a model's methods that need the model's device.
 */
class MixedDevicesTest {
  @Test
  void mixedDevicesProvableAndPossible() {
    AnalysedSources.check(
        "Mixed",
        """
        class Mixed {
          void run(Device device, Device other) {
            Tensor a = Tensor.randn(2, 2, device);
            Tensor b = Tensor.randn(2, 2); // expect: MixedDevices
            a.add(b); // expect: DiscardedTensorOp
            Tensor c = Tensor.randn(2, 2, other);
            Tensor d = a.add(c); // expect: warning MixedDevices
            Tensor e = Tensor.randn(2, 2, Device.cuda(0)).add(b); // expect: MixedDevices
            Tensor f = a.add(Tensor.scalar(2.0));
            Tensor g = a.add(b.sum());
            Tensor h = Tensor.cat(List.of(a, Tensor.randn(2, 2).detach()), 0); // expect: MixedDevices
            Tensor i = a.add(Tensor.zerosLike(a)).add(Tensor.zeros(2, 2, a.device()));
          }
        }\
        """);
  }

  @Test
  void aLocalMadeOnTheCpuIsReportedWhereItIsMade() {
    JavaFileObject f =
        source(
            "Masks",
            AnalysedSources.IMPORTS
                + """
        class Masks {
          Tensor masked(Device device) {
            Tensor mask = Tensor.randn(2, 2, device);
            Tensor keep = Tensor.randn(2, 2).detach(); // expect: MixedDevices
            Tensor first = mask.mul(keep);
            Tensor again = first.add(keep);
            return Tensor.randn(2, 2, Device.cuda(1)).mul(keep); // expect: MixedDevices
          }

          Tensor reassigned(Device device) {
            Tensor mask = Tensor.randn(2, 2, device);
            Tensor keep = Tensor.randn(2, 2);
            keep = keep.detach();
            return mask.mul(keep); // expect: MixedDevices
          }

          Tensor computedWithOthers(Device device) {
            Tensor bias = Tensor.randn(2, 2, device);
            Tensor causal = Tensor.randn(2, 2).mul(Tensor.randn(2, 2)); // expect: MixedDevices
            return bias.add(causal.detach());
          }

          Tensor throughLocals(Tensor v) {
            Tensor j = Tensor.randn(2, 2); // expect: MixedDevices
            Tensor scaled = j.detach().detach();
            Tensor coeffs = scaled.detach();
            return coeffs.mul(v.to(Device.cuda(0)));
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "keep is made here on the CPU, and mul (line 16) uses it with mask, which"
                + " is on device; in device-agnostic code this runs only when device is the CPU, and fails on the GPU"
                + " machine. Create it there: Tensor.randn(2, 2, device)");
    assertThat(c)
        .hadErrorContaining(
            "causal is made here on the CPU, and add (line 31) uses it with bias, which is on"
                + " device; in device-agnostic code this runs only when device is the CPU, and fails on the GPU machine."
                + " Create it there: Tensor.randn(2, 2, device), and the tensors it is computed with as well");
    assertThat(c)
        .hadErrorContaining(
            "j is made here on the CPU, and mul (line 38) uses it with v.to(Device.cuda(0)), which is"
                + " on cuda:0; the op fails at run time. Create it there: Tensor.randn(2, 2,"
                + " Device.cuda(0))");
  }

  @Test
  void aDeviceFieldEveryObjectHoldsAsTheCpuIsReportedWhereItIsChosen() {
    JavaFileObject f =
        source(
            "Fields",
            AnalysedSources.IMPORTS
                + """
        class Fields {
          static final class Wavelet extends Model {
            dev.ondevice.Parameter w;
            final Device device;

            Wavelet(Device device) {
              this.device = device;
            }

            Wavelet() {
              this(Device.cpu());
            }

            Tensor forward(Tensor x) {
              Tensor out = x.mul(w);
              return out.to(device); // expect: MixedDevices
            }
          }

          static final class Net extends Model {
            final Wavelet wavelet = new Wavelet();

            Tensor forward(Tensor x) {
              Tensor bands = wavelet.forward(x);
              return bands.mul(Tensor.randn(2, 2, x.device()));
            }
          }

          static final class Estimator {
            final Device device;

            Estimator() {
              this(null);
            }

            Estimator(Device device) {
              this.device = device == null ? Device.cpu() : device;
            }

            Tensor weights(Tensor time) {
              return time.to(device).detach();
            }
          }

          static final class Placed {
            final Device device;

            Placed(Device device) {
              this.device = device;
            }

            Tensor weights(Tensor time) {
              return time.to(device).detach();
            }
          }

          static Tensor weighted(Tensor loss, Tensor time) {
            Estimator km = new Estimator(); // expect: MixedDevices
            return loss.mul(km.weights(time));
          }

          static Tensor placed(Tensor loss, Tensor time, Device device) {
            Placed p = new Placed(device);
            return loss.mul(p.weights(time));
          }

          void run(Device device) {
            Net net = new Net();
            net.toDevice(device);
            net.forward(Tensor.randn(2, 2, device));
            weighted(Tensor.randn(2, 2, device), Tensor.randn(2, 2, device));
            placed(Tensor.randn(2, 2, device), Tensor.randn(2, 2, device), device);
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "out.to(device) puts a tensor on device, which is the CPU in every Wavelet made here"
                + " (new Wavelet(), line 32): a Device field set when a model is made does not"
                + " follow it when it moves, and mul (line 36) uses it with Tensor.randn(2, 2,"
                + " x.device()), which is on the model's device;")
        .inFile(f)
        .onLine(27);
    assertThat(c)
        .hadErrorContaining(
            "new Estimator() gives no device, so its device is the CPU, where time.to(device)"
                + " (line 52) puts what it computes; mul (line 70) uses it with loss, which is on"
                + " device; in device-agnostic code this runs only when device is the CPU, and"
                + " fails on the GPU machine. Give it the device of the tensors it works on")
        .inFile(f)
        .onLine(69);
  }

  @Test
  void anObjectMadeWithoutADeviceIsReportedWhereItIsUsed() {
    JavaFileObject f =
        source(
            "Sight",
            AnalysedSources.IMPORTS
                + """
        class Sight {
          static class Estimator {
            final Device device;

            Estimator() {
              this(null);
            }

            Estimator(Device device) {
              this.device = device == null ? Device.cpu() : device;
            }

            Tensor weights(Tensor time) {
              return time.to(device).detach();
            }
          }

          static Tensor defaulted(Tensor loss) {
            return loss.mul(new Estimator().weights(loss)); // expect: MixedDevices
          }

          static Tensor defaultedAgain(Tensor loss) {
            Estimator e = new Estimator(); // expect: MixedDevices
            return loss.mul(e.weights(loss));
          }

          void run(Device device) {
            defaulted(Tensor.randn(2, 2, device));
            defaultedAgain(Tensor.randn(2, 2, device));
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    // Each object is reported where the tensors it computes are used, not at every new.
    assertThat(c).hadErrorContaining("mul (line 35) uses it with loss").inFile(f).onLine(34);
  }

  @Test
  void aDeviceFieldIsNotKnownWhereASubclassIsMade() {
    AnalysedSources.check(
        "Subclassed",
        """
        class Subclassed {
          static class Estimator {
            final Device device;

            Estimator() {
              this(null);
            }

            Estimator(Device device) {
              this.device = device == null ? Device.cpu() : device;
            }

            Tensor weights(Tensor time) {
              return time.to(device).detach();
            }
          }

          static Tensor defaulted(Tensor loss) {
            return loss.mul(new Estimator().weights(loss));
          }

          static Tensor subclassed(Tensor loss, Device device) {
            Estimator e = new Estimator(device) {};
            return loss.mul(e.weights(loss));
          }

          void run(Device device) {
            defaulted(Tensor.randn(2, 2, device));
            subclassed(Tensor.randn(2, 2, device), device);
          }
        }\
        """);
  }

  @Test
  void aParameterEveryCallGivesAsNullTakesTheNullBranch() {
    JavaFileObject f =
        source(
            "Rnn",
            AnalysedSources.IMPORTS
                + """
        class Rnn {
          static final class Cell extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }
          }

          static Tensor mask(Tensor sequence, Tensor lengths) {
            return sequence.mul(lengths);
          }

          static Tensor dynamicRnn(Cell cell, Tensor inputs, Tensor lengths) {
            if (lengths == null) {
              lengths = Tensor.zeros(2, 2);
            }
            return loop(cell, inputs, lengths); // expect: MixedDevices
          }

          static Tensor loop(Cell cell, Tensor inputs, Tensor lengths) {
            List<Tensor> outputs = new java.util.ArrayList<>();
            for (int step = 0; step < 3; step++) {
              outputs.add(cell.forward(inputs));
            }
            return mask(Tensor.stack(outputs), lengths);
          }

          static final class Encoder extends Model {
            final Cell cell = new Cell();

            Tensor forward(Tensor inputs) {
              return dynamicRnn(cell, inputs, null);
            }
          }

          static final class Estimator {
            final Device device;

            Estimator(Device device) {
              this.device = device != null ? device : Device.cpu();
            }

            Tensor weights(Tensor time) {
              return time.to(device).detach();
            }
          }

          static Tensor chosenElsewhere(Tensor loss, Device device) {
            return loss.mul(new Estimator(device).weights(loss));
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    // Where the helper's own analysis meets it (samples/corpus/bugs/TexarDynamicRnnLengthsOnCpu),
    // the factory is reported instead, as the callers' to change.
    assertThat(c)
        .hadErrorContaining(
            "loop gets lengths on the CPU and uses it in mask (line 37) with sequence on the"
                + " model's device; move it to that device before the call")
        .inFile(f)
        .onLine(29);
  }

  @Test
  void aParameterIsWhereItsDataIs() {
    AnalysedSources.check(
        "Params",
        """
        class Params {
          Tensor run(Device device, Tensor unknown) {
            Tensor onDevice = Tensor.randn(2, 2, device);
            dev.ondevice.Parameter cpu = new dev.ondevice.Parameter(Tensor.randn(2, 2));
            dev.ondevice.Parameter there = new dev.ondevice.Parameter(Tensor.randn(2, 2, device));
            dev.ondevice.Parameter elsewhere = new dev.ondevice.Parameter(unknown);
            return onDevice.mul(cpu).mul(there).mul(elsewhere); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void modelMethodParametersAreFollowedThroughOwnMethodsAliasesArraysAndAMoveBack() {
    AnalysedSources.check(
        "Params",
        """
        class Params {
          static class Tagger extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x, Tensor lengths) {
              float[] l = lengths.toFloatArray();
              return x.mul(w);
            }

            Tensor tag(Tensor x, Tensor lengths) {
              return forward(x, lengths);
            }

            Tensor tagThis(Tensor x, Tensor lengths) {
              return this.forward(x, lengths);
            }

            Tensor predict(Tensor x) {
              x = x.to(device());
              return forward(x, x).cpu();
            }

            float[] lengthsOf(Tensor lengths) {
              Tensor alias;
              alias = lengths;
              return alias.toFloatArray();
            }

            float[] firstOf(Tensor a) {
              Tensor[] parts = {a, a.mul(Tensor.scalar(2.0))};
              return parts[0].toFloatArray();
            }

            void scaled(Tensor v) {
              Tensor s = w;
              w.copyFrom(v.mul(s));
            }

            void fill(Tensor x) {
              w.copyFrom(Tensor.zeros(2, 2, x.device()).add(w));
            }

            void place(Tensor x) {
              w.copyFrom(Tensor.zeros(2, 2, x.device()));
            }
          }

          void run(Device device) {
            Tagger t = new Tagger();
            t.toDevice(device);
            Tensor x = Tensor.randn(2, 2, device);
            Tensor tagged = t.tag(x, Tensor.randn(2, 2)).add(t.tagThis(x, Tensor.randn(2, 2)));
            Tensor predicted = t.predict(Tensor.randn(2, 2));
            float[] l = t.lengthsOf(Tensor.randn(2, 2));
            float[] f = t.firstOf(Tensor.randn(2, 2));
            t.place(Tensor.randn(2, 2));
            t.scaled(Tensor.randn(2, 2)); // expect: MixedDevices
            t.fill(Tensor.randn(2, 2)); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void modelMethodParametersOnAnyDeviceThroughSubmodulesSuperHelpersAndMovesBack() {
    AnalysedSources.check(
        "AnyDevice",
        """
        class AnyDevice {
          static class Tagger extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor ids, Tensor lengths) {
              float[] l = lengths.toFloatArray();
              return ids.mul(w);
            }

            Tensor forward(Tensor ids, long[] lengths) {
              return ids.mul(w);
            }

            Tensor overloaded(Tensor ids, Tensor lengths) {
              return forward(ids, lengths);
            }
          }

          static class Wrapper extends Model {
            final Tagger tagger = new Tagger();
            dev.ondevice.Parameter w;

            Tensor forward(Tensor ids, Tensor lengths) {
              return tagger.forward(ids, lengths).mul(w);
            }

            Tensor viaThis(Tensor ids, Tensor lengths) {
              return this.tagger.forward(ids, lengths);
            }
          }

          static class Sub extends Tagger {
            @Override
            Tensor forward(Tensor ids, Tensor lengths) {
              return super.forward(ids, lengths).mul(Tensor.scalar(2.0));
            }
          }

          static class Idioms extends Model {
            dev.ondevice.Parameter w;
            int calls;

            Tensor chained(Tensor images) {
              images = images.mul(Tensor.scalar(2.0)).to(device());
              return images.mul(w);
            }

            Tensor converted(Tensor x) {
              x = x.to(device()).mul(Tensor.scalar(1.0));
              return x.mul(w);
            }

            Tensor guarded(Tensor x) {
              if (!x.device().equals(device())) {
                x = x.to(device());
              }
              return x.mul(w);
            }

            Tensor checked(Tensor x) {
              java.util.Objects.requireNonNull(x, "x");
              x = x.to(device());
              return x.mul(w);
            }

            Tensor inTry(Tensor x) {
              try {
                x = x.to(device());
                return x.mul(w);
              } finally {
                calls++;
              }
            }

            float[] hostLengths(Tensor lengths) {
              return toHost(lengths);
            }

            private static float[] toHost(Tensor t) {
              return t.toFloatArray();
            }

            double total(Tensor lengths, int from) {
              return from > 2 ? 0 : lengths.toFloatArray()[from] + total(lengths, from + 1);
            }

            float[] many(Tensor lengths) {
              return first(lengths, lengths);
            }

            private float[] first(Tensor... ts) {
              return ts[0].toFloatArray();
            }

            void load(Tensor vectors) {
              vectors = vectors.mul(Tensor.scalar(0.5));
              w.copyFrom(vectors);
            }

            float[] orZeros(Tensor lengths) {
              Tensor l = lengths != null ? lengths : Tensor.zeros(2, 2);
              return l.toFloatArray();
            }

            void check(Tensor lengths) {
              if (lengths.toFloatArray().length == 0) {
                throw new IllegalArgumentException("bad lengths " + lengths);
              }
            }

            float[] halved(Tensor v) {
              for (int i = 0; i < 2; i++) {
                v = v.mul(Tensor.scalar(0.5));
              }
              return v.toFloatArray();
            }
          }

          static class Cycle extends Model {
            dev.ondevice.Parameter w;

            float[] lengthsOf(Tensor lengths, Tensor mask) {
              if (lengths != null) {
                return lengths.toFloatArray();
              }
              return lengthsFromMask(mask);
            }

            float[] lengthsFromMask(Tensor mask) {
              return lengthsOf(mask.sum(), null);
            }
          }

          void run(Device device) {
            Tensor ids = Tensor.randn(2, 2, device);
            Tensor host = Tensor.randn(2, 2);
            Tagger tagger = new Tagger();
            Wrapper wrapper = new Wrapper();
            Sub sub = new Sub();
            Idioms idioms = new Idioms();
            Cycle cycle = new Cycle();
            tagger.toDevice(device);
            wrapper.toDevice(device);
            sub.toDevice(device);
            idioms.toDevice(device);
            cycle.toDevice(device);
            Tensor a = tagger.overloaded(ids, host).add(wrapper.forward(ids, host)).add(wrapper.viaThis(ids, host));
            Tensor b = sub.forward(ids, host).add(idioms.chained(host)).add(idioms.converted(host));
            Tensor c = idioms.guarded(host).add(idioms.checked(host)).add(idioms.inTry(host));
            float[] d = idioms.hostLengths(host);
            double e = idioms.total(host, 0);
            float[] f = idioms.many(host);
            idioms.load(host);
            float[] g = idioms.orZeros(host);
            idioms.check(host);
            float[] h = idioms.halved(host);
            float[] i = cycle.lengthsFromMask(host);
            float[] j = cycle.lengthsOf(host, null);
          }
        }\
        """);
  }

  @Test
  void modelMethodParametersPassedWhereADeviceIsDeclaredAreCheckedThereNotOnTheModelsDevice() {
    AnalysedSources.check(
        "HostTables",
        """
        class HostTables {
          static final class Table {
            Table(@OnDevice("cpu") Tensor... columns) {}

            static Table of(@OnDevice("cpu") Tensor column) {
              return new Table(column);
            }
          }

          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }

            Table table(Tensor xs, Tensor ys) {
              return new Table(xs, ys);
            }

            Table single(Tensor xs) {
              return HostTables.Table.of(xs);
            }

            Table scored(Tensor xs) {
              return new Table(xs.mul(w)); // expect: MixedDevices
            }

            Table both(Tensor xs) {
              Tensor scores = forward(xs);
              return new Table(xs, scores.cpu()); // expect: MixedDevices
            }
          }

          static void run(Device device) {
            Net net = new Net();
            net.toDevice(device);
            net.table(Tensor.randn(2, 2), Tensor.randn(2, 2));
            net.single(Tensor.randn(2, 2));
            net.scored(Tensor.randn(2, 2)); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void modelMethodParametersReadOnTheHostByStaticHelpersOfOtherClasses() {
    AnalysedSources.check(
        "HostLengths",
        """
        class HostLengths {
          static final class SeqUtils {
            static float[] toList(Tensor lengths) {
              return lengths.toFloatArray();
            }

            static Tensor mask(Tensor lengths) {
              return lengths;
            }
          }

          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x, Tensor lengths) {
              float[] l = SeqUtils.toList(lengths);
              return l[0] > 2 ? x.mul(w) : x;
            }

            Tensor masked(Tensor x, Tensor lengths) {
              return x.mul(w).mul(SeqUtils.mask(lengths));
            }
          }

          static void run(Device device) {
            Net net = new Net();
            net.toDevice(device);
            Tensor x = Tensor.randn(2, 2, device);
            net.forward(x, Tensor.of(3f, 2f));
            net.masked(x, Tensor.of(3f, 2f)); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void aPrivateHelpersDeviceParameterEveryCallGivesTheModelsDeviceIsTheModelsDevice() {
    AnalysedSources.check(
        "Caches",
        """
        class Caches {
          static class Rotary extends Model {
            @dev.ondevice.annotations.Buffer Tensor freq;
            @dev.ondevice.annotations.Buffer Tensor cos;

            Rotary() {
              setCache(4, freq.device());
            }

            private void setCache(long n, Device device) {
              cos = Tensor.zeros(n, 4, device).mul(freq);
            }

            private Tensor noise(Device device) {
              return Tensor.randn(2, 2, device).mul(freq); // expect: warning MixedDevices
            }

            Tensor shared(Device device) {
              return Tensor.randn(2, 2, device).mul(freq); // expect: warning MixedDevices
            }

            Tensor forward(Tensor x, Device other) {
              setCache(4, x.device());
              setCache(2, device());
              return x.mul(cos).add(noise(x.device())).add(noise(other));
            }
          }
        }\
        """);
  }

  @Test
  void modelMethodParametersThatMeetTheModelsDeviceThroughOtherParametersAndLocals() {
    JavaFileObject f =
        source(
            "MeetState",
            AnalysedSources.IMPORTS
                + """
        class MeetState {
          static class Eval extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }

            double correct(Tensor logits, Tensor labels) {
              return logits.add(labels).sum().item();
            }

            double evaluate(Tensor x, Tensor y) {
              return correct(forward(x), y);
            }

            double best(Tensor q, Tensor k) {
              return q.mul(k).sum().item();
            }

            double predict(Tensor q) {
              return best(q, w);
            }

            Tensor shifted(Tensor x, Tensor positions) {
              x = x.to(device());
              x = x.add(positions);
              return x.mul(w);
            }

            Tensor hidden(Tensor x) {
              Device d = x.device();
              return Tensor.zeros(2, 2, d).add(w);
            }

            double shadowed(Tensor x, List<Tensor> ws) {
              ws.forEach(w -> w.toFloatArray());
              return x.mul(w).sum().item();
            }

            double stored(Tensor x) {
              Tensor[] p = {x, x};
              p[1] = w;
              return p[0].mul(p[1]).sum().item();
            }

            double walked(Tensor start, Tensor goal, Tensor x, int steps) {
              Tensor prev = start;
              Tensor h = prev;
              for (int i = 0; i < steps; i++) {
                prev = h;
                h = forward(h);
              }
              double best = x.mul(prev).sum().item();
              double near = goal.add(h).sum().item();
              return best + near;
            }
          }

          void run(Device device) {
            Eval e = new Eval();
            e.toDevice(device);
            Tensor onDevice = Tensor.randn(2, 2, device);
            double a = e.evaluate(onDevice, Tensor.randn(2, 2)); // expect: MixedDevices
            double b = e.predict(Tensor.randn(2, 2)); // expect: MixedDevices
            Tensor c = e.shifted(Tensor.randn(2, 2), Tensor.randn(2, 2)); // expect: MixedDevices
            Tensor d = e.hidden(Tensor.randn(2, 2)); // expect: MixedDevices
            double f = e.shadowed(Tensor.randn(2, 2), List.of()); // expect: MixedDevices
            double g = e.stored(Tensor.randn(2, 2)); // expect: MixedDevices
            double h = e.walked(onDevice, onDevice, Tensor.randn(2, 2), 3); // expect: MixedDevices
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "predict gets tensors on two devices: e is on device and Tensor.randn(2, 2)"
                + " (argument 'q') is on the CPU; in device-agnostic code this runs only when device is the CPU, and fails on"
                + " the GPU machine. (predict is taken to need q on the model's device: its body uses it where the device"
                + " matters (with the model's state or outputs, returned, stored or converted).) Create Tensor.randn(2, 2)"
                + " there: Tensor.randn(2, 2, device)");
  }

  @Test
  void constructorArgumentsAreCheckedAgainstOnDeviceParameters() {
    JavaFileObject f =
        source(
            "Datasets",
            AnalysedSources.IMPORTS
                + """
        class Datasets {
          static final class Pair {
            Pair(@OnDevice("cpu") Tensor input, @OnDevice("cpu") Tensor target) {}
          }

          static final class Many {
            Many(String name, @OnDevice("cpu") Tensor... tensors) {}
          }

          void run(Device device) {
            Tensor x = Tensor.randn(2, 2);
            Tensor onDevice = x.to(device);
            Pair fine = new Pair(x, Tensor.zeros(2, 2));
            Pair moved = new Pair(x, onDevice); // expect: MixedDevices
            Many first = new Many("m", onDevice, x); // expect: MixedDevices
            Many third = new Many("m", x, x, Tensor.randn(2, 2, device)); // expect: MixedDevices
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "onDevice is on device, but parameter target of Pair (@OnDevice(\"cpu\")) must be"
                + " on the CPU; move it there: onDevice.to(Device.cpu())");
  }

  @Test
  void aTensorPinnedToTheCpuMeetingTheDeviceAsksToMoveTheOtherOperand() {
    JavaFileObject f =
        source(
            "Pinned",
            AnalysedSources.IMPORTS
                + """
        class Pinned {
          static class Lookup extends Model {
            dev.ondevice.Parameter w;
            @OnDevice("cpu") Tensor table;

            Tensor forward(Tensor rows) {
              return table.mul(rows); // expect: MixedDevices
            }

            Tensor lookUp(Tensor ids) {
              return table.indexSelect(0, ids); // expect: MixedDevices
            }
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "mul gets tensors on two devices: table is pinned to the CPU (@OnDevice(\"cpu\"))"
                + " and rows is on the model's device; a pinned tensor stays on the CPU when its model moves: if table is"
                + " needed on the device, remove @OnDevice(\"cpu\") so that it moves with the model, or copy it for this op:"
                + " table.to(device())");
    assertThat(c)
        .hadErrorContaining(
            "indexSelect gets tensors on two devices: table is pinned to the CPU"
                + " (@OnDevice(\"cpu\")) and ids is on the model's device; a pinned tensor stays on the CPU"
                + " when its model moves: move ids to it for this lookup, ids.to(Device.cpu()), and the result to the device"
                + " where it is needed");
  }

  @Test
  void staticHelpersThatMakeTensorsOnTheCpuForWantOfADeviceReturnThemThere() {
    AnalysedSources.check(
        "StaticMasks",
        """
        class StaticMasks {
          static final class Masks {
            static Tensor causal(long n) {
              return Tensor.ones(dev.ondevice.Shape.of(n, n));
            }

            static Tensor table() {
              return Tensor.of(1f, 2f);
            }

            static Tensor on(long n, Device device) {
              return Tensor.ones(dev.ondevice.Shape.of(n, n), device);
            }
          }

          static class Attn extends Model {
            dev.ondevice.Parameter w;

            static Tensor causalMask(long n) {
              return Tensor.ones(dev.ondevice.Shape.of(n, n));
            }

            Tensor forward(Tensor x) {
              Tensor a = x.mul(w).mul(causalMask(2)); // expect: MixedDevices
              Tensor b = x.mul(w).mul(Masks.causal(2)); // expect: MixedDevices
              Tensor c = x.mul(w).mul(causalMask(2).to(x.device())); // expect: warning CreateThenMove
              Tensor d = x.mul(w).mul(Masks.on(2, x.device()));
              float[] e = Masks.table().toFloatArray();
              return a.add(b).add(c).add(d);
            }
          }
        }\
        """);
  }

  @Test
  void finalTensorFieldsOfOrdinaryClassesMadeOnTheCpuStayThere() {
    AnalysedSources.check(
        "Trainers",
        """
        class Trainers {
          static final class Trainer {
            final Device device;
            final Tensor classWeights = Tensor.of(1f, 5f, 1f);
            final Tensor scale = Tensor.scalar(0.5);
            Tensor cache = Tensor.of(1f);

            Trainer(Device device) {
              this.device = device;
            }

            Tensor weighted(Tensor loss, Tensor targets) {
              Tensor yb = targets.to(device);
              return loss.to(device).mul(classWeights.indexSelect(0, yb)); // expect: MixedDevices
            }

            Tensor onTheHost(Tensor targets) {
              return classWeights.indexSelect(0, targets.cpu());
            }

            Tensor scaled(Tensor loss) {
              return loss.to(device).mul(scale).mul(cache);
            }

            Tensor moved(Tensor loss) {
              return loss.to(device).mul(classWeights.to(device));
            }
          }
        }\
        """);
  }

  @Test
  void modelMethodParametersMeetingOrStoredInFieldsPinnedToTheCpuAreNotOnTheModelsDevice() {
    AnalysedSources.check(
        "Pinned",
        """
        class Pinned {
          static class Offloaded extends Model {
            @OnDevice("cpu") Tensor table;
            @OnDevice("cpu") Tensor lastIds;
            dev.ondevice.Parameter w;

            Tensor forward(Tensor ids) {
              return table.indexSelect(0, ids).to(device()).mul(w);
            }

            void remember(Tensor ids) {
              this.lastIds = ids;
            }

            Tensor scored(Tensor ids) {
              return table.indexSelect(0, ids).mul(w); // expect: MixedDevices
            }
          }

          void run(Device device) {
            Offloaded model = new Offloaded();
            model.toDevice(device);
            model.forward(Tensor.of(1f, 2f));
            model.remember(Tensor.of(1f, 2f));
            model.scored(Tensor.of(1f, 2f)); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void anElementReadByIndexMayMeetAnyDevice() {
    AnalysedSources.check(
        "Elements",
        """
        class Elements {
          Tensor weigh(Device device, long label) {
            Tensor classWeights = Tensor.of(1f, 5f, 1f);
            Tensor loss = Tensor.randn(2, 2, device);
            Tensor weighed = loss.mul(classWeights.get(label));
            return weighed.add(classWeights); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void contractsAtMethodBoundaries() {
    AnalysedSources.check(
        "Contracts",
        """
        class Contracts {
          static Tensor lookup(@OnDevice("cpu") Tensor table) {
            return table;
          }

          @OnDevice("cpu")
          static Tensor summary(Tensor x, Device device) {
            return x.to(device); // expect: MixedDevices
          }

          void run(Device device) {
            Tensor t = lookup(Tensor.randn(2, 2, device)); // expect: MixedDevices
            Tensor u = lookup(Tensor.randn(2, 2));
            Tensor v = summary(u, device).add(Tensor.randn(2, 2, device)); // expect: MixedDevices
            @OnDevice("cpu") Tensor w = Tensor.randn(2, 2, device); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void messagesSayWhatFixesTheMistakeAndOneMistakeIsReportedOnce() {
    JavaFileObject f =
        source(
            "Advice",
            AnalysedSources.IMPORTS
                + """
        class Advice {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x;
            }
          }

          static Tensor helper(Tensor x) {
            return x;
          }

          static void rows(@OnDevice("cpu") Tensor ids) {}

          Tensor movedTwice(Tensor x, Device device) {
            Tensor w = Tensor.randn(2, 2, device);
            return w.mul(x.to(Device.cuda(1))); // expect: warning MixedDevices
          }

          Tensor unnamedModel(Device device) {
            return new Net().forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
          }

          void contract(Tensor ids, Device device) {
            rows(ids.to(device)); // expect: MixedDevices
          }

          Tensor detached(Tensor fake) {
            fake.detach(); // expect: DiscardedTensorOp
            return fake;
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadWarningContaining("Move x.to(Device.cuda(1)): x.to(device)")
        .inFile(f)
        .onLine(29);
    assertThat(c)
        .hadErrorContaining(
            "move the model once, before using it: keep it in a variable and call"
                + " toDevice(device) on it")
        .inFile(f)
        .onLine(33);
    assertThat(c)
        .hadErrorContaining("must be on the CPU; move it there: ids.to(Device.cpu())")
        .inFile(f)
        .onLine(37);
    assertThat(c)
        .hadErrorContaining(
            "use fake.detach() where its result is needed, or write fake = fake.detach() if"
                + " fake itself must change")
        .inFile(f)
        .onLine(41);
  }

  @Test
  void stackingZeroDimTensorsMakesAVector() {
    AnalysedSources.check(
        "Stacked",
        """
        class Stacked {
          Tensor run(Tensor x, Device device) {
            Tensor w = Tensor.stack(List.of(Tensor.scalar(1.0), Tensor.scalar(5.0)));
            return x.to(device).mul(Tensor.scalar(2.0)).mul(w); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void aModelOfUnknownDeviceTakesItsInputsOnOneDeviceUnlessItPlacesItsPartsItself() {
    AnalysedSources.check(
        "Parallel",
        """
        class Parallel {
          static class TwoStage extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x;
            }
          }

          static class Packed extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x, @OnDevice("cpu") Tensor lengths) {
              return x;
            }
          }

          static class Cell extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x, Tensor h) {
              return x.add(h);
            }
          }

          Tensor split(TwoStage model, Loss loss, Tensor x, Tensor y) {
            Tensor out = model.forward(x.to(Device.cuda(0)));
            return loss.forward(out, y.to(Device.cuda(1))); // expect: warning MixedDevices
          }

          Tensor targetsLeftBehind(TwoStage model, Loss loss, Tensor x, Device device) {
            Tensor out = model.forward(x.to(device));
            return loss.forward(out, Tensor.zeros(2, 2)); // expect: MixedDevices
          }

          static class Halves extends Model {
            final Cell first = new Cell();
            final Cell second = new Cell();

            Halves() {
              first.toDevice(Device.cuda(0));
              second.toDevice(Device.cuda(1));
            }

            Tensor forward(Tensor x, Tensor h) {
              return second.forward(first.forward(x, h).to(Device.cuda(1)), h.to(Device.cuda(1)));
            }
          }

          Tensor inputsOnSeveralDevices(Cell cell, Tensor x, Tensor h) {
            return cell.forward(x.to(Device.cuda(0)), h.to(Device.cuda(1))); // expect: MixedDevices
          }

          Tensor spreadModel(Halves halves, Tensor x, Tensor h) {
            return halves.forward(x.to(Device.cuda(0)), h.to(Device.cuda(1)));
          }
        }\
        """);
  }

  @Test
  void zeroDimShapesGiveCpuScalarsThatMeetAnyDevice() {
    AnalysedSources.check(
        "ScalarShapes",
        """
        class ScalarShapes {
          Tensor run(Device device) {
            Tensor x = Tensor.randn(2, 2, device);
            Tensor total = Tensor.zeros(dev.ondevice.Shape.scalar());
            Tensor half = Tensor.full(dev.ondevice.Shape.scalar(), 0.5);
            dev.ondevice.Shape none = dev.ondevice.Shape.scalar();
            Tensor third = Tensor.full(none, 0.33);
            Tensor row = Tensor.zeros(dev.ondevice.Shape.of(2));
            return x.add(total).mul(half).mul(third).add(row); // expect: MixedDevices
          }

          Tensor noDimensions(Device device) {
            Tensor x = Tensor.randn(2, 2, device);
            Tensor empty = Tensor.zeros(dev.ondevice.Shape.of());
            dev.ondevice.Shape none = dev.ondevice.Shape.of();
            return x.add(Tensor.zeros()).mul(Tensor.randn()).add(empty).add(Tensor.ones(none));
          }

          Tensor oneDimension(Device device) {
            Tensor x = Tensor.randn(2, 2, device);
            return x.add(Tensor.zeros(1)); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void finalDeviceFieldsHaveTheDeviceOfTheirInitializer() {
    AnalysedSources.check(
        "DeviceFields",
        """
        class DeviceFields {
          static final Device HOST = Device.cpu();
          static final Device GPU = Device.cuda(0);

          Tensor run() {
            Tensor table = Tensor.randn(2, 2).to(HOST);
            Tensor x = table.add(Tensor.randn(2, 2));
            return Tensor.randn(2, 2, GPU).add(x); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void aCpuScalarCannotTakeAnInPlaceResultNorBeJoinedWithDeviceTensors() {
    AnalysedSources.check(
        "ScalarRoles",
        """
        class ScalarRoles {
          Tensor run(Device device, Tensor x) {
            Tensor y = x.to(device);
            Tensor total = Tensor.scalar(0.0);
            total.addi(y.sum()); // expect: MixedDevices
            y.addi(Tensor.scalar(1.0));
            Tensor both = Tensor.cat(List.of(y, y), 0);
            return Tensor.cat(List.of(y, Tensor.scalar(0.0)), 0); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void aModelThatMovesItselfToItsDeviceFieldIsOnThatDevice() {
    AnalysedSources.check(
        "SelfMoved",
        """
        class SelfMoved {
          static class Net extends Model {
            final Device device;
            dev.ondevice.Parameter w;

            Net(Device device) {
              this.device = device;
              toDevice(device);
            }

            Tensor predict(Tensor x) {
              return forward(x.to(device));
            }

            Tensor forward(Tensor x) {
              return x.mul(w);
            }
          }

          static class Stays extends Model {
            final Device device;
            dev.ondevice.Parameter w;

            Stays(Device device) {
              this.device = device;
            }

            Tensor predict(Tensor x) {
              return x.to(device).mul(w); // expect: warning MixedDevices
            }
          }
        }\
        """);
  }

  @Test
  void aCpuTensorAssignedToAModelsStateInItsMethodIsReported() {
    JavaFileObject f =
        source(
            "Recover",
            AnalysedSources.IMPORTS
                + """
        class Recover {
          static class Norm extends Model {
            @dev.ondevice.annotations.Buffer Tensor mean;
            @dev.ondevice.annotations.Buffer Tensor std;
            @OnDevice("cpu") Tensor hostCopy;

            Tensor forward(Tensor x) {
              return x.add(mean).mul(std);
            }

            void load(java.nio.file.Path path, Device device) {
              Map<String, Tensor> stats = dev.ondevice.io.Checkpoint.load(path,
                  dev.ondevice.io.MapLocation.to(Device.cpu())).stateDict();
              mean = stats.get("mean"); // expect: MixedDevices
              this.std = stats.get("std").to(device());
              hostCopy = stats.get("mean");
              Map<String, Tensor> here = dev.ondevice.io.Checkpoint.load(path,
                  dev.ondevice.io.MapLocation.to(device)).stateDict();
              std = here.get("std");
            }
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "mean is state of Norm, which moves with the model, but stats.get(\"mean\") is"
                + " on the CPU: once the model is on a device, mean stays here and meets the model's other tensors on two"
                + " devices. Assign it where the model is: stats.get(\"mean\").to(device())")
        .inFile(f)
        .onLine(25);
  }

  @Test
  void aTensorALaterIterationPutsOnTheCpuIsReportedWhereItIsMade() {
    JavaFileObject f =
        source(
            "Rollout",
            AnalysedSources.IMPORTS
                + """
        class Rollout {
          static class Policy extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor obs, Tensor masks) {
              return obs.mul(w).mul(masks);
            }
          }

          void evaluate(Device device, int steps, float[] done) {
            Policy policy = new Policy();
            policy.toDevice(device);
            Tensor masks = Tensor.zeros(2, 2, device);
            for (int i = 0; i < steps; i++) {
              Tensor out = policy.forward(Tensor.randn(2, 2, device), masks);
              masks = Tensor.of(done); // expect: MixedDevices
            }
          }

          void withTheDeviceOverload(Device device, int steps) {
            Policy policy = new Policy();
            policy.toDevice(device);
            Tensor state = Tensor.zeros(2, 2, device);
            for (int i = 0; i < steps; i++) {
              Tensor out = policy.forward(Tensor.randn(2, 2, device), state);
              state = Tensor.zeros(2, 2); // expect: MixedDevices
            }
          }

          void movedFirst(Device device, int steps, float[] done) {
            Policy policy = new Policy();
            policy.toDevice(device);
            Tensor masks = Tensor.zeros(2, 2, device);
            for (int i = 0; i < steps; i++) {
              masks = masks.to(device);
              Tensor out = policy.forward(Tensor.randn(2, 2, device), masks);
              masks = Tensor.of(done);
            }
          }

          void sometimes(Device device, int steps, float[] done) {
            Policy policy = new Policy();
            policy.toDevice(device);
            Tensor masks = Tensor.zeros(2, 2, device);
            for (int i = 0; i < steps; i++) {
              Tensor out = policy.forward(Tensor.randn(2, 2, device), masks);
              if (i % 2 == 0) {
                masks = Tensor.of(done);
              }
            }
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    // The line to change is the assignment that puts it on the CPU, not the op.
    assertThat(c)
        .hadErrorContaining(
            "Tensor.of(done) makes a tensor on the CPU here, which the loop's next iteration gives"
                + " forward (line 26) as masks, with policy on device; in device-agnostic code this"
                + " runs only when device is the CPU, and fails on the GPU machine. Move it to the"
                + " device, where it was before the loop: Tensor.of(done).to(device)")
        .inFile(f)
        .onLine(27);
    assertThat(c)
        .hadErrorContaining(
            "Tensor.zeros(2, 2) makes a tensor on the CPU here, which the loop's next iteration"
                + " gives forward (line 36) as state, with policy on device; in device-agnostic code"
                + " this runs only when device is the CPU, and fails on the GPU machine. Create it"
                + " there: Tensor.zeros(2, 2, device)")
        .inFile(f)
        .onLine(37);
  }

  @Test
  void aFieldThatOnlyAccumulatesIntoItselfStaysOnTheCpuWhereItStarted() {
    JavaFileObject f =
        source(
            "Accumulators",
            AnalysedSources.IMPORTS
                + """
        class Accumulators {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }
          }

          static class Scorer {
            final Net model = new Net();
            Tensor losses = Tensor.of(new float[0]); // expect: MixedDevices
            Tensor hostLosses = Tensor.of(new float[0]);
            Tensor total = Tensor.scalar(0.0);
            Tensor moved = Tensor.of(new float[0]);
            Tensor reset = Tensor.of(new float[0]);

            Scorer(Device device) {
              model.toDevice(device);
            }

            void inform(Tensor x) {
              Tensor loss = model.forward(x);
              losses = Tensor.cat(List.of(losses, loss), 0);
              hostLosses = Tensor.cat(List.of(hostLosses, loss.cpu()), 0);
              total = total.add(loss.sum());
              moved = Tensor.cat(List.of(moved.to(loss.device()), loss), 0);
              reset = Tensor.cat(List.of(reset, loss), 0);
            }

            void clear(Device device) {
              reset = Tensor.zeros(0, 4, device);
            }
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c)
        .hadErrorContaining(
            "losses starts here on the CPU, and each assignment computes its next value from it, so"
                + " it stays there; cat (line 35) uses it with loss, which is on device; the op fails"
                + " when they differ. Create losses on the device of what it accumulates (a device"
                + " given to the constructor), or move what it accumulates to the CPU there:"
                + " loss.to(Device.cpu())")
        .inFile(f)
        .onLine(23);
  }

  @Test
  void aDeviceEveryCallGivesAsItsReceiversIsTheModelsDevice() {
    JavaFileObject f =
        source(
            "Steps",
            AnalysedSources.IMPORTS
                + """
        class Steps {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }

            Tensor step(Tensor x, Device device) {
              return forward(x.to(device));
            }

            Tensor elsewhere(Tensor x, Device device) {
              return forward(x.to(device)); // expect: warning MixedDevices
            }
          }

          void run(Device device, Device other, Tensor x) {
            Net model = new Net();
            model.toDevice(device);
            Tensor a = model.step(x, device);
            Tensor b = model.elsewhere(x, device);
            Tensor c = model.elsewhere(x, other);
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
  }
}
