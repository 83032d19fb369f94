package dev.ondevice.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.ondevice.processor.Sources.source;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The device analysis on small programs against stubs of the runtime API: each diagnostic pinned
 * by ID and line through {@code // expect:} markers, and no diagnostic where none is expected.
 */
class DeviceAnalysisTest {
  private static final String IMPORTS = """
      package test;
      import dev.ondevice.Cuda;
      import dev.ondevice.Device;
      import dev.ondevice.Loader;
      import dev.ondevice.Loss;
      import dev.ondevice.Tensor;
      import dev.ondevice.annotations.OnDevice;
      import dev.ondevice.annotations.Step;
      import dev.ondevice.nn.Model;
      import java.util.List;
      """;

  private static void check(String name, String body, String... options) {
    JavaFileObject f = source(name, IMPORTS + body);
    Compilation c = Sources.compileWithOptions(List.of(options), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
  }

  @Test
  void aMoveStoredButNeverReadWhileTheOriginalIsUsedIsDiscarded() {
    check("Stored", """
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
    check("Discards", """
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
  void bodiesOfNestedLocalAndAnonymousClassesAreAnalysed() {
    check("Nested", """
        class Nested {
          Runnable field = new Runnable() {
            @Override
            public void run() {
              Tensor.randn(2, 2).cpu(); // expect: DiscardedMove
            }
          };

          void run(Device device) {
            Runnable r = new Runnable() {
              @Override
              public void run() {
                Tensor x = Tensor.randn(2, 2);
                x.to(device); // expect: DiscardedMove
              }
            };
            class Local {
              void go(Tensor y) {
                y.cpu(); // expect: DiscardedMove
              }
            }
            Runnable inLoop = null;
            for (int i = 0; i < 2; i++) {
              inLoop = new Runnable() {
                @Override
                public void run() {
                  Tensor a = Tensor.randn(2, 2, Device.cuda(0)).add(Tensor.randn(2, 2)); // expect: MixedDevices
                }
              };
            }
            int[] a = new int[2];
            a[new Object() {
              int index(Tensor t) {
                t.to(device); // expect: DiscardedMove
                return 0;
              }
            }.index(Tensor.randn(1))] = 1;
            r.run();
          }

          static class Member {
            void go(Device device, Tensor z) {
              z.to(device); // expect: DiscardedMove
            }
          }
        }\
        """);
  }

  @Test
  void mixedDevicesProvableAndPossible() {
    check("Mixed", """
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
    JavaFileObject f = source("Masks", IMPORTS + """
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
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c).hadErrorContaining("keep is made here on the CPU, and mul (line 15) uses it with mask, which"
        + " is on device; in device-agnostic code this runs only when device is the CPU, and fails on the GPU"
        + " machine. Create it there: Tensor.randn(2, 2, device)");
    assertThat(c).hadErrorContaining("causal is made here on the CPU, and add (line 30) uses it with bias, which is on"
        + " device; in device-agnostic code this runs only when device is the CPU, and fails on the GPU machine."
        + " Create it there: Tensor.randn(2, 2, device), and the tensors it is computed with as well");
  }

  @Test
  void aParameterIsWhereItsDataIs() {
    check("Params", """
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
  void aCopiedDeviceVariableIsTheSameDevice() {
    check("Copies", """
        class Copies {
          void run() {
            Device device = Device.cudaIfAvailable();
            Device same = device;
            Tensor a = Tensor.randn(2, 2, device);
            Tensor b = Tensor.randn(2, 2, same);
            Tensor c = a.add(b).add(Tensor.randn(2, 2, Device.cudaIfAvailable()));
            Tensor d = Tensor.randn(2, 2, Device.parse("cuda:1")).add(Tensor.randn(2, 2, Device.cuda(1)));
          }
        }\
        """);
  }

  @Test
  void branchesJoin() {
    check("Branches", """
        class Branches {
          void both(Device device, boolean flag) {
            Tensor x = Tensor.randn(2, 2);
            if (flag) {
              x = x.to(device);
            } else {
              x = x.to(device);
            }
            Tensor y = x.add(Tensor.randn(2, 2, device));
          }

          void one(Device device, boolean flag) {
            Tensor x = Tensor.randn(2, 2);
            if (flag) {
              x = x.to(device);
            }
            Tensor y = x.add(Tensor.randn(2, 2, device)); // expect: warning MixedDevices
            Tensor z = (flag ? x.to(device) : x.to(device)).add(Tensor.randn(2, 2, device));
          }

          void neither(Device device, boolean flag) {
            Tensor x = Tensor.randn(2, 2); // expect: MixedDevices
            if (flag) {
              return;
            }
            Tensor y = x.add(Tensor.randn(2, 2, device));
          }
        }\
        """);
  }

  @Test
  void aTensorMovedOnSomePathsOnlyMayDifferFromTheDevice() {
    JavaFileObject f = source("SomePathsMoved", IMPORTS + """
        class SomePathsMoved {
          Tensor run(Device device, boolean useGpu) {
            Tensor w = Tensor.randn(2, 2, device);
            Tensor x = Tensor.randn(2, 2);
            if (useGpu) {
              x = x.to(device);
            }
            Tensor y = Tensor.randn(2, 2);
            if (useGpu) {
              y = y.to(device);
            } else {
              y = y.to(device);
            }
            return w.add(x).add(y); // expect: warning MixedDevices
          }
        }\
        """);
    Compilation c = Sources.compileWithOptions(List.of(), List.of(f));
    ExpectedFindings.assertMatch(c, List.of(f));
    assertThat(c).hadWarningContaining("add gets tensors on two devices: w is on device and x (argument 'other') is on"
        + " the CPU or device, by the path taken; they may be different devices at run time. Move x: x.to(device)");
  }

  @Test
  void loopsReachAFixedPoint() {
    check("Loops", """
        class Loops {
          void run(Device device, List<Tensor> data) {
            Tensor total = Tensor.zeros(2, 2, device);
            Tensor x = Tensor.randn(2, 2);
            for (Tensor t : data) {
              Tensor moved = t.to(device);
              total = total.add(moved);
              x = x.to(device);
            }
            Tensor y = total.add(Tensor.randn(2, 2, device));
            int i = 0;
            while (i++ < 3) {
              Tensor bad = total.add(Tensor.randn(2, 2)); // expect: MixedDevices
              if (i == 2) {
                continue;
              }
              total = total.add(total);
            }
          }
        }\
        """);
  }

  @Test
  void tryCatchFinallyAndLambdas() {
    check("Control", """
        class Control {
          void run(Device device) {
            Tensor x = Tensor.randn(2, 2, device);
            try {
              x = x.add(x);
            } catch (RuntimeException e) {
              x = Tensor.randn(2, 2, device);
            } finally {
              Tensor y = x.add(Tensor.randn(2, 2)); // expect: MixedDevices
            }
            Tensor z = x;
            Runnable r = () -> z.to(device); // expect: DiscardedMove
            java.util.function.Supplier<Tensor> s = () -> z.add(Tensor.randn(2, 2)); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void modelMethodsThatHandBackCpuTensorsOrTakeTensorsOnAnyDevice() {
    check("Methods", """
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
  void modelMethodParametersAreFollowedThroughOwnMethodsAliasesArraysAndAMoveBack() {
    check("Params", """
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
    check("AnyDevice", """
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
  void idiomsOfPortedProgramsThatAreCorrect() {
    check("Ported", """
        class Ported {
          static class Bag extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              return x.mul(w);
            }

            Tensor meanOver(Tensor x, Tensor lengths) {
              Device dev = device();
              return forward(x).mul(lengths.to(dev));
            }

            Tensor masked(Tensor x, Tensor hostLengths) {
              Tensor mask = hostLengths.add(Tensor.randn(2, 2));
              mask = mask.to(x.device());
              return forward(x).mul(mask);
            }

            double correct(Tensor x, Tensor hostLabels) {
              return forward(x).cpu().add(hostLabels).sum().item();
            }

            Tensor hostLengths(Tensor ids) {
              if (ids.item() == 0) {
                return Tensor.zeros(0);
              }
              return forward(ids).sum().cpu();
            }
          }

          static class Placed extends Model {
            dev.ondevice.Parameter w;

            Placed(String spec) {
              toDevice(Device.parse(spec));
            }

            Tensor forward(Tensor x) {
              return x.mul(w);
            }
          }

          double run(Device device, Loader loader, Loss loss, int last) {
            Bag bag = new Bag();
            bag.toDevice(device);
            Tensor x = Tensor.randn(2, 2, device);
            Tensor host = Tensor.randn(2, 2);
            Tensor a = bag.meanOver(x, host).add(bag.masked(x, host));
            double b = bag.correct(x, host);
            Tensor c = bag.hostLengths(x);
            Placed placed = new Placed("cuda:0");
            Tensor d = placed.forward(Tensor.randn(2, 2, Device.cuda(0)));
            int i = 0;
            for (Loader.Batch batch : loader) {
              Tensor l = loss.forward(batch.inputs().to(device), batch.targets().to(device));
              if (++i % 10 == 0 || i == last) {
                System.out.println(l.item());
              }
            }
            return b;
          }
        }\
        """);
  }

  @Test
  void modelMethodParametersPassedWhereADeviceIsDeclaredAreCheckedThereNotOnTheModelsDevice() {
    check("HostTables", """
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
    check("HostLengths", """
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
    check("Caches", """
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
    JavaFileObject f = source("MeetState", IMPORTS + """
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
    assertThat(c).hadErrorContaining("predict gets tensors on two devices: e is on device and Tensor.randn(2, 2)"
        + " (argument 'q') is on the CPU; in device-agnostic code this runs only when device is the CPU, and fails on"
        + " the GPU machine. (predict is taken to need q on the model's device: its body uses it where the device"
        + " matters (with the model's state or outputs, returned, stored or converted).) Create Tensor.randn(2, 2)"
        + " there: Tensor.randn(2, 2, device)");
  }

  @Test
  void constructorArgumentsAreCheckedAgainstOnDeviceParameters() {
    JavaFileObject f = source("Datasets", IMPORTS + """
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
    assertThat(c).hadErrorContaining("onDevice is on device, but parameter target of Pair (@OnDevice(\"cpu\")) must be"
        + " on the CPU; move it there: onDevice.to(Device.cpu())");
  }

  @Test
  void aModelMethodReturningATensorMadeOnTheDefaultDevice() {
    JavaFileObject f = source("Hidden", IMPORTS + """
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
    assertThat(c).hadErrorContaining("Tensor.zeros(batch, 4) creates a tensor on the CPU (the default device) that"
        + " initHidden returns: once the model has moved, its callers get it on the CPU beside the model's tensors;"
        + " create it on the model's device, passing device() to the factory, or declare initHidden"
        + " @OnDevice(\"cpu\") if it is meant to be on the CPU");
  }

  @Test
  void aTensorPinnedToTheCpuMeetingTheDeviceAsksToMoveTheOtherOperand() {
    JavaFileObject f = source("Pinned", IMPORTS + """
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
    assertThat(c).hadErrorContaining("mul gets tensors on two devices: table is pinned to the CPU (@OnDevice(\"cpu\"))"
        + " and rows is on the model's device; a pinned tensor stays on the CPU when its model moves: if table is"
        + " needed on the device, remove @OnDevice(\"cpu\") so that it moves with the model, or copy it for this op:"
        + " table.to(device())");
    assertThat(c).hadErrorContaining("indexSelect gets tensors on two devices: table is pinned to the CPU"
        + " (@OnDevice(\"cpu\")) and ids is on the model's device; a pinned tensor stays on the CPU"
        + " when its model moves: move ids to it for this lookup, ids.to(Device.cpu()), and the result to the device"
        + " where it is needed");
  }

  @Test
  void theSeedsTrainingLoopBugs() {
    check("Train", """
        class Train {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x) {
              return x;
            }
          }

          void run(Device device, Loader loader, Loss loss) {
            Net net = new Net();
            Tensor probe = net.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
            net.toDevice(device);
            Tensor total = Tensor.scalar(0.0);
            for (Loader.Batch batch : loader) {
              Tensor xb = batch.inputs().to(device);
              Tensor yb = batch.targets();
              Tensor out = net.forward(xb);
              Tensor l = loss.forward(out, yb); // expect: TargetsNotMoved
              double v = l.item(); // expect: warning HostSyncInLoop
              System.out.println("loss " + l); // expect: warning HostSyncInLoop
              total = total.add(l.detach());
            }
            double epoch = total.item();
          }

          @Step
          double step(Tensor loss) {
            return loss.item(); // expect: warning HostSyncInLoop
          }

          // Logging every n steps, a last read before stopping, printing a CPU tensor: not every batch.
          void logging(Device device, Loader loader, Loss loss, int maxSteps) {
            int step = 0;
            for (Loader.Batch batch : loader) {
              Tensor l = loss.forward(batch.inputs().to(device), batch.targets().to(device));
              if (++step % 25 == 0) {
                System.out.println("step " + step + " loss " + l.item());
              }
              if (step % 25 != 0) {
                continue;
              } else {
                double every = l.item(); // the else of step % 25 != 0: every 25th batch
              }
              if (step == maxSteps) {
                System.out.println("last loss " + l.item());
                break;
              }
              if (step == 1) {
                System.out.println("first targets " + batch.targets());
              }
              if (step % 10 != 0) {
                double most = l.item(); // expect: warning HostSyncInLoop
              }
              switch (step) {
                case 3: {
                  double each = l.item(); // expect: warning HostSyncInLoop
                  break;
                }
                default:
                  break;
              }
              if (step % 50 == 0) {
                for (int k = 0; k < 2; k++) {
                  double inner = l.item();
                }
              }
              if (step % 100 == 0 && l.item() < 0.1) {
                System.out.println("good enough at " + step);
              }
              if (step % 100 != 0 || l.item() > 10) {
                double most = step;
              } else {
                double logged = l.item();
              }
              double shown = step % 20 == 0 ? l.item() : Double.NaN;
              double hidden = step % 20 != 0 ? l.item() : Double.NaN; // expect: warning HostSyncInLoop
              if (!(step % 100 == 0)) {
                double inverted = l.item(); // expect: warning HostSyncInLoop
              }
              if (!(step % 100 != 0)) {
                double twiceInverted = l.item();
              }
              if (step % 200 == 0) {
                Tensor copy = l.to(Device.cpu());
              }
              Tensor copied = l.to(Device.cpu()); // expect: warning HostSyncInLoop
              switch (step) {
                case 0:
                  double lastOfCase = l.item();
                  return;
                case 1:
                  double thenBreak = l.item(); // expect: warning HostSyncInLoop
                  break;
                default:
                  break;
              }
            }
          }

          @Step
          double guardedStep(Tensor loss, int step) {
            if (step % 10 != 0) {
              return 0;
            }
            return loss.item();
          }

          @Step
          double unguardedStep(Tensor loss, int step) {
            if (step % 10 == 0) {
              return 0;
            }
            return loss.item(); // expect: warning HostSyncInLoop
          }

          void guarded(Device device, Loader loader, Loss loss) {
            int step = 0;
            training:
            for (int epoch = 0; epoch < 3; epoch++) {
              for (Loader.Batch batch : loader) {
                Tensor l = loss.forward(batch.inputs().to(device), batch.targets().to(device));
                if (++step % 100 != 0) {
                  continue;
                }
                double logged = l.item();
                if (step > 1000) {
                  double last = l.item();
                  break training;
                }
              }
            }
          }

          @Step
          double stepAndReturn(Tensor loss) {
            double v = loss.item(); // expect: warning HostSyncInLoop
            return v;
          }
        }\
        """);
  }

  @Test
  void readsOnSomeBatchesOnlyThroughSumsArraysIteratorsFlagsMasksAndSwitchExpressions() {
    check("MorePeriodic", """
        class MorePeriodic {
          double run(Device device, Loader loader, Loss loss, int accum, int n) {
            int i = 0;
            int[] step = {0};
            boolean first = true;
            boolean done = false;
            double seen = 0;
            for (Loader.Batch b : loader) {
              Tensor l = loss.forward(b.inputs().to(device), b.targets().to(device));
              step[0]++;
              if ((i + 1) % accum == 0 || i + 1 == n) {
                seen += l.item();
              }
              if (i - 1 == n + i) {
                seen += l.item(); // expect: warning HostSyncInLoop
              }
              if (step[0] % 5 == 0) {
                seen += l.item();
              }
              if (first) {
                seen += l.item();
                first = false;
              }
              if (!done) {
                seen += l.item();
                done = true;
              }
              boolean again = true;
              if (again) {
                seen += l.item(); // expect: warning HostSyncInLoop
                again = false;
              }
              int phase = i % 3;
              if (phase == 0) {
                seen += l.item();
              }
              if ((i & 7) == 0) {
                seen += l.item();
              }
              seen += switch (i % 4) {
                case 0 -> l.item();
                default -> 0;
              };
              seen += switch (n) {
                case 0 -> l.item(); // expect: warning HostSyncInLoop
                default -> 0;
              };
              i++;
            }
            Loader.Batches it = loader.iterator();
            while (it.hasNext()) {
              Loader.Batch b = it.next();
              Tensor l = loss.forward(b.inputs().to(device), b.targets().to(device));
              if (!it.hasNext()) {
                seen += l.item();
              }
              if (it.hasNext()) {
                seen += l.item(); // expect: warning HostSyncInLoop
              }
            }
            return seen;
          }
        }\
        """);
  }

  @Test
  void aModelThatAMethodBuildsAndReturnsIsOnTheCpuUntilMoved() {
    check("Builders", """
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
  void staticHelpersThatMakeTensorsOnTheCpuForWantOfADeviceReturnThemThere() {
    check("StaticMasks", """
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
    check("Trainers", """
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
  void aPartReplacedAfterTheModelMovedIsOnTheCpu() {
    JavaFileObject f = source("Finetune", IMPORTS + """
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
    assertThat(c).hadErrorContaining("stale.fc was replaced by a new part made on the CPU after stale was moved: its"
        + " parameters are on the CPU while Tensor.randn(2, 2, device) is on device; move the model again after"
        + " replacing it: stale.toDevice(device)");
  }

  @Test
  void aModelMovedByAFunctionItIsGivenIsNotReportedAsNeverMoved() {
    check("Applied", """
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
  void readsOnSomeBatchesOnlyThroughLambdasLocalsSwitchesAndExits() {
    check("Periodic", """
        class Periodic {
          static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger("periodic");

          double run(Device device, Loader loader, Loss loss, int maxSteps, boolean verbose, boolean quiet) {
            int step = 0;
            for (int epoch = 0; epoch < 3; epoch++) {
              for (Loader.Batch b : loader) {
                Tensor l = loss.forward(b.inputs().to(device), b.targets().to(device));
                if (++step == maxSteps) {
                  return l.item();
                }
                if (step < 0) {
                  throw new IllegalStateException("diverged: " + l);
                }
                if (step % 100 == 0) {
                  LOG.info(() -> "loss " + l.item());
                }
                boolean logStep = step % 50 == 0;
                if (logStep) {
                  double logged = l.item();
                }
                if (epoch % 5 == 0) {
                  double everyBatchOfSomeEpochs = l.item(); // expect: warning HostSyncInLoop
                }
                for (int i = 0; i < 10; i++) {
                  if (i % 10 == 0) {
                    double oncePerBatch = l.item(); // expect: warning HostSyncInLoop
                  }
                }
                if (step % 100 == 0 || verbose) {
                  double everyBatchWhenVerbose = l.item(); // expect: warning HostSyncInLoop
                }
                switch (step % 7) {
                  case 0:
                    double seventh = l.item();
                    break;
                  default:
                    break;
                }
                if (Math.floorMod(step, 30) == 0) {
                  double thirtieth = l.item();
                }
                if (step % 100 != 0 && quiet) {
                  continue;
                }
                double everyBatchUnlessQuiet = l.item(); // expect: warning HostSyncInLoop
                if (step % 20 != 0) {
                  verbose = !verbose;
                  continue;
                }
                double twentieth = l.item();
              }
            }
            return 0;
          }

          double neverStepped(Device device, Loader loader, Loss loss) {
            int step = 0;
            for (Loader.Batch b : loader) {
              Tensor l = loss.forward(b.inputs().to(device), b.targets().to(device));
              if (step % 10 == 0) {
                double everyBatch = l.item(); // expect: warning HostSyncInLoop
              }
            }
            return 0;
          }

          @Step
          static float[] toHost(Tensor logits) {
            return logits.to(Device.cpu()).toFloatArray(); // expect: warning HostSyncInLoop
          }

          @Step
          static void metrics(java.util.Map<String, Tensor> metrics, int step) {
            if (step % 10 != 0) {
              return;
            }
            metrics.forEach((k, v) -> System.out.println(k + " " + v.item()));
          }
        }\
        """);
  }

  @Test
  void aTensorMadeOnTheDefaultDeviceOnSomePathsInAModel() {
    JavaFileObject f = source("SomePaths", IMPORTS + """
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
    assertThat(c).hadWarningContaining("Tensor.zeros(2, 8) creates a tensor on the CPU (the default device) inside"
        + " Rnn.forward, where it meets x.mul(w) on the model's device on the paths where h is this tensor; create it"
        + " there: pass x.device() to the factory");
    assertThat(c).hadWarningContaining("that init returns on some paths: once the model has moved, its callers get it"
        + " on the CPU beside the model's tensors; create it on the model's device, passing device() to the factory");
    assertThat(c).hadErrorContaining("Tensor.zeros(2 * b, 8) creates a tensor on the CPU (the default device) that"
        + " pick returns: once");
  }

  @Test
  void modelMethodsReturningCpuTensorsTheirCallersTakeOnTheCpu() {
    JavaFileObject f = source("Returns", IMPORTS + """
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
    assertThat(c).hadErrorContaining("create it on the model's device, passing x.device() to the factory");
  }

  @Test
  void privateHelpersWhoseCpuResultsTheirCallersMoveOrReadThroughLocals() {
    check("Helpers", """
        class Helpers {
          static class Masks extends Model {
            dev.ondevice.Parameter w;

            private Tensor local(int n) {
              return Tensor.randn(n, n);
            }

            private Tensor atUse(int n) {
              return Tensor.randn(n, n);
            }

            private Tensor guarded(int n) {
              return Tensor.randn(n, n);
            }

            private Tensor rows(int n) {
              return Tensor.randn(n, 1);
            }

            private Tensor summed(int n) {
              return Tensor.randn(n, n);
            }

            private Tensor leaked(int n) {
              return Tensor.randn(n, n); // expect: DefaultDeviceInModel
            }

            private Tensor late(int n) {
              return Tensor.randn(n, n); // expect: DefaultDeviceInModel
            }

            Tensor forward(Tensor x) {
              Tensor a = local(2);
              a = a.to(x.device()); // expect: warning CreateThenMove
              Tensor b = atUse(2);
              Tensor c = guarded(2);
              if (!c.device().equals(x.device())) {
                c = c.to(x.device());
              }
              float[] r = rows(2).toFloatArray();
              Tensor s = summed(2).sum().to(x.device()); // expect: warning CreateThenMove
              Tensor d = leaked(2);
              Tensor y = x.mul(w).add(d);
              Tensor e = late(2);
              Tensor z = y.add(e);
              e = e.to(x.device());
              return z.add(a).add(b.to(x.device())).add(c).add(s).add(e); // expect: warning CreateThenMove
            }
          }
        }\
        """);
  }

  @Test
  void modelMethodParametersMeetingOrStoredInFieldsPinnedToTheCpuAreNotOnTheModelsDevice() {
    check("Pinned", """
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
  void aModelWhoseOnlyStateIsAMapOfSubmodulesIsOnTheCpuUntilMoved() {
    check("Containers", """
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
  void switchExpressionsAreInterpretedCaseByCase() {
    check("Switches", """
        class Switches {
          enum Mode { TRAIN, EVAL }

          static int batchSize(Mode mode, Tensor x, Device device) {
            return switch (mode) {
              case TRAIN -> {
                x.to(device); // expect: DiscardedMove
                yield 64;
              }
              case EVAL -> 256;
            };
          }

          static Tensor joined(Mode mode, Tensor x, Device device) {
            Tensor y = switch (mode) {
              case TRAIN -> x.to(device);
              case EVAL -> {
                Tensor z = x.add(x);
                yield z.to(device);
              }
            };
            return y.add(Tensor.randn(2, 2)); // expect: MixedDevices
          }

          static Tensor unknown(Mode mode, Tensor x, Device device) {
            Tensor y = switch (mode) {
              case TRAIN -> x.to(device);
              case EVAL -> x;
            };
            return y.add(Tensor.randn(2, 2));
          }
        }\
        """);
  }

  @Test
  void aFactoryConstructorMovedRightAwayIsReportedWithoutAFix() {
    JavaFileObject f = source("Features", IMPORTS + """
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
    assertThat(c).hadWarningContaining("new Features(16) creates the tensor on the CPU and to(device) copies it to the"
        + " device right away; create it there instead: pass the device to the factory").inFile(f).onLine(26);
  }

  @Test
  void messagesNameAnonymousModelsByTheirBaseClass() {
    JavaFileObject f = source("Anonymous", IMPORTS + """
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
    assertThat(c).hadErrorContaining("inside (anonymous Base).forward, where it meets super.forward(x)").inFile(f)
        .onLine(24);
  }

  @Test
  void defaultDeviceInAModelAndStaticConstants() {
    check("Models", """
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
  void nonBlockingCopies(){
    check("Copies2", """
        class Copies2 {
          void run(Device device) {
            Tensor pageable = Tensor.randn(2, 2);
            Tensor a = pageable.to(device, true); // expect: warning NonBlockingFromPageable
            Tensor b = pageable.pinMemory().to(device, true);
            Tensor host = Tensor.randn(2, 2, device).to(Device.cpu(), true);
            float[] early = host.toFloatArray(); // expect: UnsyncedNonBlockingRead
            Tensor host2 = Tensor.randn(2, 2, device).to(Device.cpu(), true);
            Cuda.synchronize();
            float[] fine = host2.toFloatArray();
          }
        }\
        """);
  }

  @Test
  void everyCulpritOfOneOpIsReported() {
    check("Culprits", """
        class Culprits {
          static class Net extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              Tensor a = Tensor.zeros(2, 2); // expect: DefaultDeviceInModel
              Tensor b = Tensor.randn(2, 2); // expect: DefaultDeviceInModel
              return Tensor.cat(List.of(x.mul(w), a, b), 0);
            }
          }
        }\
        """);
  }

  @Test
  void anElementReadByIndexMayMeetAnyDevice() {
    check("Elements", """
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
  void createThenMove() {
    check("Creates", """
        class Creates {
          void run(Device device) {
            Tensor a = Tensor.randn(3, 3).to(device); // expect: warning CreateThenMove
            Tensor b = Tensor.randn(3, 3, device);
            Tensor c = Tensor.of(1f, 2f).to(device);
          }

          Tensor throughOps(Tensor timesteps, int half) {
            Tensor freqs = Tensor.randn(2, 2).mul(Tensor.scalar(-2.0)).sum().to(timesteps.device()); // expect: warning CreateThenMove
            Tensor mixed = Tensor.randn(2, 2).mul(timesteps).to(timesteps.device());
            return freqs;
          }
        }\
        """);
  }

  @Test
  void createThenMoveThroughAVariableOrAHelperOnEveryStep() {
    check("Encodings", """
        class Encodings {
          static Tensor sinusoid(Tensor positions, Tensor frequencies) {
            Tensor angles = positions.mul(frequencies);
            return Tensor.cat(List.of(angles, angles.mul(Tensor.scalar(2.0))), 0);
          }

          static Tensor encoding(long n) {
            Tensor positions = Tensor.randn(n, 1);
            return sinusoid(positions, Tensor.randn(1, 8));
          }

          static Tensor fromData(Tensor data) {
            return sinusoid(data, Tensor.randn(1, 8));
          }

          static class Attention extends Model {
            dev.ondevice.Parameter w;

            Tensor forward(Tensor x) {
              Tensor pos = encoding(4);
              pos = pos.to(x.device()); // expect: warning CreateThenMove
              Tensor direct = encoding(4).to(x.device()); // expect: warning CreateThenMove
              Tensor data = fromData(x.detach().cpu()).to(x.device());
              Tensor written = Tensor.randn(2, 2);
              written.addi(x.detach().cpu());
              Tensor alsoOnTheCpu = Tensor.randn(2, 2);
              double host = alsoOnTheCpu.sum().item();
              return x.mul(w).add(pos).add(direct).add(data).add(written.to(x.device()))
                  .add(alsoOnTheCpu.to(x.device()));
            }
          }

          static Tensor setUp(Device device) {
            Tensor table = encoding(16);
            return table.to(device);
          }
        }\
        """);
  }

  @Test
  void aHelperFirstSeenAtTheDepthLimitIsSeenInFullFromNearer() {
    check("Chains", """
        class Chains {
          static class Attention extends Model {
            dev.ondevice.Parameter w;

            static Tensor encoding(long n) {
              return Tensor.randn(n, n).detach();
            }

            static Tensor one(long n) { return two(n); }
            static Tensor two(long n) { return three(n); }
            static Tensor three(long n) { return encoding(n); }

            Tensor forward(Tensor x) {
              Tensor far = one(2).to(x.device());
              Tensor near = three(2).to(x.device()); // expect: warning CreateThenMove
              return x.mul(w).add(far).add(near);
            }
          }
        }\
        """);
  }

  @Test
  void contractsAtMethodBoundaries() {
    check("Contracts", """
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
  void suppressionAndSeverityOptions() {
    String body = """
        class Options {
          void run(Device device) {
            Tensor a = Tensor.randn(2, 2, device).add(Tensor.randn(2, 2)); // expect: MixedDevices
          }

          @SuppressWarnings("MixedDevices")
          void quiet(Device device) {
            Tensor a = Tensor.randn(2, 2, device).add(Tensor.randn(2, 2));
          }

          @SuppressWarnings({"unchecked", "MixedDevices"})
          void quietInAList(Device device) {
            Tensor a = Tensor.randn(2, 2, device).add(Tensor.randn(2, 2));
          }
        }\
        """;
    check("Options", body);
    JavaFileObject f = source("Options", IMPORTS + body);
    assertThat(Sources.compileWithOptions(List.of("-Aondevice.check.MixedDevices=warning"), List.of(f)))
        .hadWarningContaining("[MixedDevices]").inFile(f).onLine(13);
    assertThat(Sources.compileWithOptions(List.of("-Aondevice.check.MixedDevices=off"), List.of(f)))
        .succeededWithoutWarnings();
    assertThat(Sources.compileWithOptions(List.of("-Aondevice.analysis=off"), List.of(f))).succeededWithoutWarnings();
    assertThat(Sources.compileWithOptions(List.of("-Aondevice.check.MixedDevices=loud"), List.of(f)))
        .hadErrorContaining("-Aondevice.check.MixedDevices=loud must be error, warning or off");
  }

  @Test
  void correctDeviceAgnosticCodeHasNoFindings() {
    check("Correct", """
        class Correct {
          static class Net extends Model {
            Tensor forward(Tensor x) {
              return x.add(Tensor.zerosLike(x)).mul(Tensor.scalar(0.5));
            }
          }

          Tensor moved(Tensor x, Device device) {
            return x.to(device);
          }

          void run(Loader loader, Loss loss) {
            Device device = Device.cudaIfAvailable();
            Net net = new Net();
            net.toDevice(device);
            Tensor total = Tensor.zeros(1, 1, device);
            for (int epoch = 0; epoch < 2; epoch++) {
              for (Loader.Batch b : loader) {
                Tensor xb = b.inputs().to(device, true);
                Tensor yb = b.targets().to(device, true);
                Tensor l = loss.forward(net.forward(xb), yb);
                total = total.add(l.detach());
                Tensor extra = moved(b.inputs(), device).add(xb);
              }
              System.out.println("epoch " + epoch + " loss " + total.item());
            }
          }
        }\
        """);
  }

  @Test
  void findingsInLoopsSurviveTheFixedPoint() {
    check("LoopFinding", """
        class LoopFinding {
          void run(Device device, List<Tensor> data) {
            Tensor total = Tensor.zeros(2, 2, device);
            for (Tensor t : data) {
              total = total.add(Tensor.randn(2, 2)); // expect: MixedDevices
            }
          }
        }\
        """);
  }

  @Test
  void aModelOfUnknownDeviceTakesTheDeviceOfItsInputs() {
    check("Unknown", """
        class Unknown {
          static class Net extends Model {
            Tensor forward(Tensor x) {
              return x;
            }
          }

          void train(Net net, Loader loader, Loss loss, Device device) {
            for (Loader.Batch b : loader) {
              Tensor out = net.forward(b.inputs().to(device));
              Tensor l = loss.forward(out, b.targets()); // expect: TargetsNotMoved
              long[] labels = b.targets().toFloatArray() == null ? null : null;
            }
          }
        }\
        """);
  }

  @Test
  void staticConstantsAreEvaluatedFromTheirInitializers() {
    check("Statics", """
        class Statics {
          static final Tensor TWO = Tensor.scalar(2.0);
          static final Device DEVICE = Device.cudaIfAvailable();
          static final Tensor ON_DEVICE = Tensor.randn(2, 2, DEVICE);
          static final Tensor HOST = Tensor.randn(2, 2);
          @SuppressWarnings("StaticTensorConstant")
          static final Tensor QUIET = Tensor.randn(2, 2);

          void run() {
            Tensor x = Tensor.randn(2, 2, DEVICE);
            Tensor a = x.mul(TWO).add(ON_DEVICE);
            Tensor b = x.add(HOST.mul(TWO)); // expect: StaticTensorConstant
            Tensor c = x.add(QUIET);
          }
        }\
        """);
  }

  @Test
  void defaultDeviceSurvivesOpsAndDiscardedFactoriesGetNoBogusAssignment() {
    JavaFileObject f = source("Origins", IMPORTS + """
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
    assertThat(c).hadErrorContaining("Tensor.zeros(2, 2, device) returns a new tensor and its result is discarded, so"
        + " this statement does nothing; assign its result to a variable").inFile(f).onLine(20);
  }

  @Test
  void messagesSayWhatFixesTheMistakeAndOneMistakeIsReportedOnce() {
    JavaFileObject f = source("Advice", IMPORTS + """
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
    assertThat(c).hadWarningContaining("Move x.to(Device.cuda(1)): x.to(device)").inFile(f).onLine(28);
    assertThat(c).hadErrorContaining("move the model once, before using it: keep it in a variable and call"
        + " toDevice(device) on it").inFile(f).onLine(32);
    assertThat(c).hadErrorContaining("must be on the CPU; move it there: ids.to(Device.cpu())").inFile(f).onLine(36);
    assertThat(c).hadErrorContaining("use fake.detach() where its result is needed, or write fake = fake.detach() if"
        + " fake itself must change").inFile(f).onLine(40);
  }

  @Test
  void statelessLayersWorkOnAnyDeviceAndContainersTakeTheirLayersDevice() {
    check("Layers", """
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
  void theFirstIterationOfALoopStartsFromTheValuesBeforeIt() {
    check("FirstIteration", """
        class FirstIteration {
          static class Cell extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x, Tensor h) {
              return x.add(h);
            }
          }

          Tensor hidden(Device device, List<Tensor> steps) {
            Cell cell = new Cell();
            cell.toDevice(device);
            Tensor h = Tensor.zeros(4, 16);
            for (Tensor x : steps) {
              h = cell.forward(x.to(device), h); // expect: MixedDevices
            }
            return h;
          }

          Tensor average(Device device) {
            Tensor avg = Tensor.zeros(4, 4);
            for (int i = 0; i < 10; i++) {
              avg = Tensor.randn(4, 4, device).add(avg); // expect: MixedDevices
            }
            return avg;
          }

          Tensor movedOnTheFirstIteration(Device device, List<Tensor> steps) {
            Tensor h = Tensor.zeros(4, 16);
            for (Tensor x : steps) {
              h = h.to(device);
              h = x.to(device).add(h);
            }
            return h;
          }

          Tensor guardedByAStep(Device device, List<Tensor> steps) {
            Tensor prev = Tensor.zeros(4, 16);
            int step = 0;
            for (Tensor x : steps) {
              Tensor out = x.to(device);
              if (step++ == 0) {
                prev = out;
                continue;
              }
              prev = out.add(prev);
            }
            return prev;
          }

          Tensor guardedByAFlag(Device device, List<Tensor> steps) {
            Tensor prev = Tensor.zeros(4, 16);
            boolean first = true;
            for (Tensor x : steps) {
              Tensor out = x.to(device);
              if (!first) {
                out = out.add(prev);
              }
              prev = out;
              first = false;
            }
            return prev;
          }

          Tensor seededAverage(Device device, List<Tensor> steps) {
            Tensor ema = Tensor.zeros(4, 16);
            int i = 0;
            for (Tensor x : steps) {
              Tensor y = x.to(device);
              ema = i++ == 0 ? y : ema.add(y);
            }
            return ema;
          }

          Tensor untilBreak(Device device, Tensor x) {
            while (true) {
              x = x.to(device);
              break;
            }
            return x.add(Tensor.randn(2, 2)); // expect: MixedDevices
          }
        }\
        """);
  }

  /**
   * javac discards the trees of a class once it has generated it: what the analysis reads from
   * another class's source (a model method that moves its model, a final Device field, a static
   * tensor) must be the same whether that class comes before or after the code that uses it.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void otherClassesAreReadTheSameWayWhateverTheOrderOfTheFiles(boolean usesFirst) {
    JavaFileObject config = source("Config", IMPORTS + """
        final class Config {
          static final Device HOST = Device.cpu();
          static final Device GPU = Device.cuda(0);
          static final Tensor TABLE = Tensor.randn(2, 2);
          static Tensor cache;
        }

        class Net extends Model {
          dev.ondevice.Parameter w;

          Tensor forward(Tensor x) {
            return x;
          }

          void deploy(Device device) {
            place(device);
          }

          private void place(Device device) {
            toDevice(device);
          }
        }\
        """);
    JavaFileObject uses = source("Uses", IMPORTS + """
        class Uses {
          Tensor run(Device device) {
            Tensor a = Tensor.randn(2, 2, Config.HOST).add(Tensor.randn(2, 2));
            Tensor b = Tensor.randn(2, 2, Config.GPU).add(Tensor.randn(2, 2)); // expect: MixedDevices
            Tensor c = Tensor.randn(2, 2, device).add(Config.TABLE); // expect: StaticTensorConstant
            Tensor d = Tensor.randn(2, 2, device).add(Config.cache);
            Net net = new Net();
            Tensor e = net.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
            Net deployed = new Net();
            deployed.deploy(device);
            return deployed.forward(Tensor.randn(2, 2, device));
          }
        }\
        """);
    List<JavaFileObject> files = usesFirst ? List.of(uses, config) : List.of(config, uses);
    ExpectedFindings.assertMatch(Sources.compileWithOptions(List.of(), files), files);
  }

  @Test
  void deviceVariablesWhoseDeviceIsChosenAtRunTimeAreSymbolicDevices() {
    check("RunTimeDevices", """
        class RunTimeDevices {
          record Config(Device device) {}

          Tensor chosen(boolean gpu) {
            Device device = Cuda.isAvailable() ? Device.cuda(0) : Device.cpu();
            return Tensor.randn(2, 2, device).add(Tensor.randn(2, 2)); // expect: MixedDevices
          }

          Tensor parsed(String[] args, int rank) {
            Device device = Device.parse(args[0]);
            Device local = Device.cuda(rank);
            Tensor a = Tensor.randn(2, 2, device).add(Tensor.randn(2, 2)); // expect: MixedDevices
            return Tensor.randn(2, 2, local).add(Tensor.randn(2, 2)); // expect: MixedDevices
          }

          Tensor chosenByStatements(boolean gpu, String mode) {
            Device device;
            if (Cuda.isAvailable()) {
              device = Device.cuda(0);
            } else {
              device = Device.cpu();
            }
            Tensor a = Tensor.randn(2, 2, device).add(Tensor.randn(2, 2)); // expect: MixedDevices
            Device fallback = Device.cpu();
            if (gpu) {
              fallback = Device.parse("cuda:1");
            }
            Tensor b = Tensor.randn(2, 2, fallback).add(Tensor.randn(2, 2)); // expect: MixedDevices
            Device picked;
            switch (mode) {
              case "gpu":
                picked = Device.cuda(0);
                break;
              default:
                picked = Device.cpu();
            }
            Tensor c = Tensor.randn(2, 2, picked).add(Tensor.randn(2, 2, picked));
            return Tensor.randn(2, 2, picked).add(Tensor.randn(2, 2)); // expect: MixedDevices
          }

          // A parameter's device or the CPU: not a choice made here, so not followed.
          Tensor parameterOrCpu(Device device, boolean debug) {
            Device d = device;
            if (debug) {
              d = Device.cpu();
            }
            return Tensor.randn(2, 2, d).add(Tensor.randn(2, 2, device));
          }

          Tensor reassigned(String[] args) {
            Device device = Device.cpu();
            device = Device.parse(args[0]);
            return Tensor.randn(2, 2, device).add(Tensor.randn(2, 2, device));
          }

          // A getter or a record's accessor may give a device fixed by design (the CPU for storage):
          // its device is not known, and nothing is reported.
          Tensor accessor(Config cfg) {
            Device storage = cfg.device();
            return Tensor.randn(2, 2, storage).add(Tensor.randn(2, 2)).add(Tensor.randn(2, 2, cfg.device()));
          }

          // A Device captured by an anonymous class: its value is not followed into the class.
          java.util.function.Function<Tensor, Tensor> captured() {
            Device host = Device.cpu();
            return new java.util.function.Function<>() {
              @Override
              public Tensor apply(Tensor t) {
                return t.to(host).mul(Tensor.randn(2, 2));
              }
            };
          }
        }\
        """);
  }

  @Test
  void valuesAssignedInATryWithAFinallyBlockAreKept() {
    check("Finally", """
        class Finally {
          Tensor run(Tensor x, Device device) {
            Tensor moved;
            try {
              moved = x.to(device);
            } finally {
              Cuda.synchronize();
            }
            return moved.add(Tensor.randn(2, 2)); // expect: MixedDevices
          }

          Tensor returnsInTry(Tensor x, Device device) {
            try {
              return x.to(device);
            } finally {
              Tensor t = Tensor.randn(2, 2, device).add(Tensor.randn(2, 2)); // expect: MixedDevices
            }
          }
        }\
        """);
  }

  @Test
  void stackingZeroDimTensorsMakesAVector() {
    check("Stacked", """
        class Stacked {
          Tensor run(Tensor x, Device device) {
            Tensor w = Tensor.stack(List.of(Tensor.scalar(1.0), Tensor.scalar(5.0)));
            return x.to(device).mul(Tensor.scalar(2.0)).mul(w); // expect: MixedDevices
          }
        }\
        """);
  }

  @Test
  void aReadGuardedByIsReadyIsNotAnUnsynchronisedRead() {
    check("Ready", """
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

  @Test
  void aStaticTensorFieldWithoutAnInitializerIsACacheOnAnUnknownDevice() {
    check("Caches", """
        class Caches {
          private static Tensor mask;
          static final Tensor TABLE = Tensor.randn(2, 2);

          static Tensor masked(Tensor scores, Device device) {
            if (mask == null) {
              mask = Tensor.ones(dev.ondevice.Shape.of(2, 2), device);
            }
            return scores.to(device).mul(mask);
          }

          static Tensor table(Tensor scores, Device device) {
            return scores.to(device).mul(TABLE); // expect: StaticTensorConstant
          }

          static final Tensor MEAN;

          static {
            MEAN = Tensor.randn(2, 2);
          }

          static Tensor centred(Tensor x, Device device) {
            return x.to(device).add(MEAN); // expect: StaticTensorConstant
          }
        }\
        """);
  }

  @Test
  void modelsMovedThroughAnAliasOrByTheirOwnMethodsAreNotReported() {
    check("Aliases", """
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
            Cuda.restore(net);
            return net.forward(Tensor.randn(2, 2, device)); // expect: ModelNotMoved
          }
        }\
        """);
  }

  @Test
  void aModelOfUnknownDeviceTakesItsInputsOnOneDeviceUnlessItPlacesItsPartsItself() {
    check("Parallel", """
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
  void anIteratorOfBatchesCreatedAgainInTheLoopStillGivesBatches() {
    check("Refresh", """
        class Refresh {
          void train(Model model, Loader loader, Loss loss, Device device, int steps) {
            java.util.Iterator<Loader.Batch> it = loader.iterator();
            for (int step = 0; step < steps; step++) {
              if (!it.hasNext()) {
                it = loader.iterator();
              }
              Loader.Batch b = it.next();
              Tensor x = b.inputs().to(device);
              Tensor l = loss.forward(x, b.targets()); // expect: TargetsNotMoved
            }
          }
        }\
        """);
  }

  @Test
  void aHiddenStateCreatedOnTheCpuBeforeALoopInAModelIsReported() {
    check("Recurrent", """
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

  @Test
  void zeroDimShapesGiveCpuScalarsThatMeetAnyDevice() {
    check("ScalarShapes", """
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
  void aModelMovedInALambdaMayBeOnEitherDevice() {
    check("LambdaMove", """
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
  void blockingCopiesToTheHostInTheBatchLoopAreHostSyncs() {
    check("CopyToHost", """
        class CopyToHost {
          void run(Device device, Loader loader) {
            for (Loader.Batch b : loader) {
              Tensor pred = b.inputs().to(device);
              Tensor host = pred.to(Device.cpu()); // expect: warning HostSyncInLoop
              Tensor later = pred.to(Device.cpu(), true);
              Tensor stays = b.targets().to(Device.cpu());
            }
          }
        }\
        """);
  }

  @Test
  void finalDeviceFieldsHaveTheDeviceOfTheirInitializer() {
    check("DeviceFields", """
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
  void methodReferencesWhoseResultsAreDropped() {
    check("References", """
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
  void aFunctionThatDeclaresAnExceptionRunsForIt() {
    check("Throwing", """
        class Throwing {
          interface Executable {
            void execute() throws Throwable;
          }

          static void assertThrows(Class<? extends Throwable> type, Executable e) {}

          void run(Tensor a, Tensor b) {
            assertThrows(IllegalArgumentException.class, () -> a.add(b));
            Runnable r = () -> a.add(b); // expect: DiscardedTensorOp
          }
        }\
        """);
  }

  @Test
  void localAndAnonymousModelClassesAreReported() {
    check("LocalModels", """
        class LocalModels {
          void run(Device device) {
            class Net extends Model { // expect: LocalModelClass
              dev.ondevice.Parameter w;
            }
            Model anonymous = new Model() {}; // expect: LocalModelClass
            class Holder {
              static class Inner extends Model { // expect: LocalModelClass
                dev.ondevice.Parameter w;
              }
            }
            Runnable notAModel = new Runnable() {
              public void run() {}
            };
          }

          @SuppressWarnings("LocalModelClass")
          void quiet() {
            Model anonymous = new Model() {};
          }
        }\
        """);
  }

  @Test
  void aWhileLoopOverABatchIteratorIsABatchLoop() {
    check("WhileBatches", """
        class WhileBatches {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x) {
              return x;
            }
          }

          void run(Net net, Loader loader, Loss loss, Device device) {
            net.toDevice(device);
            Loader.Batches it = loader.iterator();
            while (it.hasNext()) {
              Loader.Batch b = it.next();
              Tensor out = net.forward(b.inputs().to(device));
              Tensor l = loss.forward(out, b.targets()); // expect: TargetsNotMoved
              double v = l.item(); // expect: warning HostSyncInLoop
            }
            Loader.Batch first = loader.iterator().next();
            double once = net.forward(first.inputs().to(device)).item();
          }
        }\
        """);
  }

  @Test
  void aCpuScalarCannotTakeAnInPlaceResultNorBeJoinedWithDeviceTensors() {
    check("ScalarRoles", """
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
  void batchIteratorsInAnyLoopForm() {
    check("IteratorForms", """
        class IteratorForms {
          static class Net extends Model {
            dev.ondevice.Parameter w;
            Tensor forward(Tensor x) {
              return x;
            }
          }

          void declaredAsIterator(Net net, Loader loader, Loss loss, Device device) {
            net.toDevice(device);
            java.util.Iterator<Loader.Batch> it = loader.iterator();
            while (it.hasNext()) {
              Loader.Batch b = it.next();
              Tensor l = loss.forward(net.forward(b.inputs().to(device)), b.targets()); // expect: TargetsNotMoved
            }
          }

          void withABudget(Net net, Loader loader, Device device, int max) {
            net.toDevice(device);
            Loader.Batches it = loader.iterator();
            int step = 0;
            while (it.hasNext() && step++ < max) {
              double v = net.forward(it.next().inputs().to(device)).item(); // expect: warning HostSyncInLoop
            }
          }

          void breakingOut(Net net, Loader loader, Device device) {
            net.toDevice(device);
            Loader.Batches it = loader.iterator();
            while (true) {
              if (!it.hasNext()) {
                break;
              }
              Loader.Batch b = it.next();
              double v = net.forward(b.inputs().to(device)).item(); // expect: warning HostSyncInLoop
            }
          }
        }\
        """);
  }

  @Test
  void aModelMovedThroughAnAnonymousClassOrAMethodReferenceMayBeOnEitherDevice() {
    check("IndirectMoves", """
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
  void aDiscardedMoveIsReportedOnceNotAgainWhereTheTensorIsUsed() {
    check("OneMistake", """
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
