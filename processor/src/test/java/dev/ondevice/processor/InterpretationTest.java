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
 * The interpreter under the device checks: branches joined, loops to a fixed point, try, switch and
 * lambdas, other classes read in any order, devices chosen at run time, suppression and severity
 * options, and correct programs left clean.
 */
class InterpretationTest {
  @Test
  void bodiesOfNestedLocalAndAnonymousClassesAreAnalysed() {
    AnalysedSources.check(
        "Nested",
        """
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
  void aCopiedDeviceVariableIsTheSameDevice() {
    AnalysedSources.check(
        "Copies",
        """
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
    AnalysedSources.check(
        "Branches",
        """
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
    JavaFileObject f =
        source(
            "SomePathsMoved",
            AnalysedSources.IMPORTS
                + """
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
    assertThat(c)
        .hadWarningContaining(
            "add gets tensors on two devices: w is on device and x (argument 'other') is on"
                + " the CPU or device, by the path taken; they may be different devices at run time. Move x: x.to(device)");
  }

  @Test
  void loopsReachAFixedPoint() {
    AnalysedSources.check(
        "Loops",
        """
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
    AnalysedSources.check(
        "Control",
        """
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
  void idiomsOfPortedProgramsThatAreCorrect() {
    AnalysedSources.check(
        "Ported",
        """
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
  void switchExpressionsAreInterpretedCaseByCase() {
    AnalysedSources.check(
        "Switches",
        """
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
  void suppressionAndSeverityOptions() {
    String body =
        """
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
    AnalysedSources.check("Options", body);
    JavaFileObject f = source("Options", AnalysedSources.IMPORTS + body);
    assertThat(
            Sources.compileWithOptions(
                List.of("-Aondevice.check.MixedDevices=warning"), List.of(f)))
        .hadWarningContaining("[MixedDevices]")
        .inFile(f)
        .onLine(14);
    assertThat(Sources.compileWithOptions(List.of("-Aondevice.check.MixedDevices=off"), List.of(f)))
        .succeededWithoutWarnings();
    assertThat(Sources.compileWithOptions(List.of("-Aondevice.analysis=off"), List.of(f)))
        .succeededWithoutWarnings();
    assertThat(
            Sources.compileWithOptions(List.of("-Aondevice.check.MixedDevices=loud"), List.of(f)))
        .hadErrorContaining("-Aondevice.check.MixedDevices=loud must be error, warning or off");
  }

  @Test
  void correctDeviceAgnosticCodeHasNoFindings() {
    AnalysedSources.check(
        "Correct",
        """
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
    AnalysedSources.check(
        "LoopFinding",
        """
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
  void theFirstIterationOfALoopStartsFromTheValuesBeforeIt() {
    AnalysedSources.check(
        "FirstIteration",
        """
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
    JavaFileObject config =
        source(
            "Config",
            AnalysedSources.IMPORTS
                + """
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
    JavaFileObject uses =
        source(
            "Uses",
            AnalysedSources.IMPORTS
                + """
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
    AnalysedSources.check(
        "RunTimeDevices",
        """
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
    AnalysedSources.check(
        "Finally",
        """
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
  void aFunctionThatDeclaresAnExceptionRunsForIt() {
    AnalysedSources.check(
        "Throwing",
        """
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
}
