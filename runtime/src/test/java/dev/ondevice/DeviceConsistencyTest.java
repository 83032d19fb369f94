package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Where tensors are created, and PyTorch's rule that the tensor operands of an op share a device,
 * with its one exception: a 0-dim CPU tensor may stand as a scalar beside a tensor on any device.
 */
class DeviceConsistencyTest {
  private static final Device CPU = Device.cpu();
  private static final Device CUDA0 = Device.cuda(0);
  private static final Device CUDA1 = Device.cuda(1);

  static Stream<Device> devices() {
    return TestDevices.withSecondDevice();
  }

  // ---------------------------------------------------------------- factories

  static Stream<Arguments> factories() {
    return Stream.of(
        Arguments.of(
            "empty",
            (Function<Device, Tensor>) d -> Tensor.empty(Shape.of(2, 3), DType.FLOAT32, d)),
        Arguments.of(
            "zeros(Shape)", (Function<Device, Tensor>) d -> Tensor.zeros(Shape.of(2, 3), d)),
        Arguments.of(
            "zeros(Shape, dtype)",
            (Function<Device, Tensor>) d -> Tensor.zeros(Shape.of(2), DType.INT64, d)),
        Arguments.of("zeros(n)", (Function<Device, Tensor>) d -> Tensor.zeros(3, d)),
        Arguments.of("zeros(n, m)", (Function<Device, Tensor>) d -> Tensor.zeros(2, 3, d)),
        Arguments.of("zeros(n, m, k)", (Function<Device, Tensor>) d -> Tensor.zeros(2, 3, 4, d)),
        Arguments.of("ones(Shape)", (Function<Device, Tensor>) d -> Tensor.ones(Shape.of(2, 3), d)),
        Arguments.of(
            "ones(Shape, dtype)",
            (Function<Device, Tensor>) d -> Tensor.ones(Shape.of(2), DType.BOOL, d)),
        Arguments.of("ones(n)", (Function<Device, Tensor>) d -> Tensor.ones(3, d)),
        Arguments.of("ones(n, m)", (Function<Device, Tensor>) d -> Tensor.ones(2, 3, d)),
        Arguments.of("full", (Function<Device, Tensor>) d -> Tensor.full(Shape.of(2), 7.0, d)),
        Arguments.of(
            "full(dtype)",
            (Function<Device, Tensor>) d -> Tensor.full(Shape.of(2), 7.0, DType.FLOAT64, d)),
        Arguments.of("scalar", (Function<Device, Tensor>) d -> Tensor.scalar(2.5, d)),
        Arguments.of("eye", (Function<Device, Tensor>) d -> Tensor.eye(3, d)),
        Arguments.of("arange", (Function<Device, Tensor>) d -> Tensor.arange(2, 6, d)),
        Arguments.of(
            "arange(step)",
            (Function<Device, Tensor>) d -> Tensor.arange(0, 1, 0.25, DType.FLOAT32, d)),
        Arguments.of("rand(Shape)", (Function<Device, Tensor>) d -> Tensor.rand(Shape.of(2, 2), d)),
        Arguments.of("rand(n)", (Function<Device, Tensor>) d -> Tensor.rand(4, d)),
        Arguments.of("rand(n, m)", (Function<Device, Tensor>) d -> Tensor.rand(2, 2, d)),
        Arguments.of(
            "randn(Shape)", (Function<Device, Tensor>) d -> Tensor.randn(Shape.of(2, 2), d)),
        Arguments.of("randn(n)", (Function<Device, Tensor>) d -> Tensor.randn(4, d)),
        Arguments.of("randn(n, m)", (Function<Device, Tensor>) d -> Tensor.randn(2, 2, d)),
        Arguments.of("randn(n, m, k)", (Function<Device, Tensor>) d -> Tensor.randn(2, 2, 2, d)),
        Arguments.of(
            "randn(n, m, k, l)", (Function<Device, Tensor>) d -> Tensor.randn(2, 2, 2, 2, d)),
        Arguments.of(
            "randint", (Function<Device, Tensor>) d -> Tensor.randint(0, 10, Shape.of(5), d)),
        Arguments.of(
            "bernoulli(p, shape)",
            (Function<Device, Tensor>) d -> Tensor.bernoulli(0.5, Shape.of(4), d)),
        Arguments.of(
            "of(float[])",
            (Function<Device, Tensor>) d -> Tensor.of(new float[] {1, 2}, Shape.of(2), d)),
        Arguments.of(
            "of(double[])",
            (Function<Device, Tensor>) d -> Tensor.of(new double[] {1, 2}, Shape.of(2), d)),
        Arguments.of(
            "of(long[])",
            (Function<Device, Tensor>) d -> Tensor.of(new long[] {1, 2}, Shape.of(2), d)));
  }

  static Stream<Arguments> factoriesOnDevices() {
    return factories().flatMap(f -> devices().map(d -> Arguments.of(f.get()[0], f.get()[1], d)));
  }

  @ParameterizedTest(name = "{0} on {2}")
  @MethodSource("factoriesOnDevices")
  void factoriesCreateOnTheirDevice(String name, Function<Device, Tensor> factory, Device device) {
    assertEquals(device, factory.apply(device).device());
  }

  @Test
  void factoriesWithoutADeviceCreateOnTheCpu() {
    for (Tensor t :
        List.of(
            Tensor.zeros(2, 3),
            Tensor.ones(2),
            Tensor.full(Shape.of(2), 1.0),
            Tensor.scalar(1.0),
            Tensor.scalar(1L),
            Tensor.arange(3),
            Tensor.rand(2),
            Tensor.randn(2),
            Tensor.randint(0, 3, Shape.of(2)),
            Tensor.of(1f, 2f),
            Tensor.of(1.0, 2.0),
            Tensor.of(1L, 2L),
            Tensor.of(1, 2),
            Tensor.of(true, false),
            Tensor.of(new float[][] {{1, 2}}))) {
      assertEquals(CPU, t.device());
    }
  }

  @Test
  void factoriesOnTheCurrentCudaDeviceReportCudaZero() {
    Tensor t = Tensor.zeros(3, Device.cuda());
    assertEquals(CUDA0, t.device());
    assertTrue(t.device().hasIndex());
  }

  @Test
  void factoriesFillTheirValuesOnTheDevice() {
    assertArrayEquals(new float[] {7, 7}, Tensor.full(Shape.of(2), 7.0, CUDA1).toFloatArray());
    assertArrayEquals(new float[] {1, 0, 0, 1}, Tensor.eye(2, CUDA1).toFloatArray());
    assertArrayEquals(new long[] {2, 3, 4}, Tensor.arange(2, 5, CUDA1).toLongArray());
    assertArrayEquals(
        new double[] {1, 2}, Tensor.of(new double[] {1, 2}, Shape.of(2), CUDA1).toDoubleArray());
  }

  @Test
  void creatingOnTheDeviceCopiesNothingWhileCreatingThenMovingCopies() {
    DeviceStats.reset();
    Tensor direct = Tensor.randn(100, 100, CUDA0);
    assertEquals(CUDA0, direct.device());
    assertEquals(
        0, DeviceStats.of(CUDA0).hostToDeviceCopies(), "created on the device: no transfer");

    Tensor moved = Tensor.randn(100, 100).to(CUDA0);
    assertEquals(CUDA0, moved.device());
    assertEquals(
        1,
        DeviceStats.of(CUDA0).hostToDeviceCopies(),
        "created on the CPU and moved: one transfer");
    assertEquals(100 * 100 * 4, DeviceStats.of(CUDA0).hostToDeviceBytes());
  }

  @Test
  void fromDataOnADeviceIsOneHostToDeviceCopy() {
    DeviceStats.reset();
    Tensor t = Tensor.of(new float[] {1, 2, 3}, Shape.of(3), CUDA0);
    assertEquals(1, DeviceStats.of(CUDA0).hostToDeviceCopies());
    assertEquals(12, DeviceStats.of(CUDA0).hostToDeviceBytes());
    assertArrayEquals(new float[] {1, 2, 3}, t.toFloatArray());
  }

  static Stream<Arguments> likeFactories() {
    return Stream.of(
        Arguments.of("emptyLike", (Function<Tensor, Tensor>) Tensor::emptyLike),
        Arguments.of("zerosLike", (Function<Tensor, Tensor>) Tensor::zerosLike),
        Arguments.of("onesLike", (Function<Tensor, Tensor>) Tensor::onesLike),
        Arguments.of("fullLike", (Function<Tensor, Tensor>) t -> Tensor.fullLike(t, 3.0)),
        Arguments.of("randLike", (Function<Tensor, Tensor>) Tensor::randLike),
        Arguments.of("randnLike", (Function<Tensor, Tensor>) Tensor::randnLike),
        Arguments.of(
            "bernoulli(p)", (Function<Tensor, Tensor>) t -> Tensor.bernoulli(t.mul(0.0).add(0.5))));
  }

  static Stream<Arguments> likeFactoriesOnDevices() {
    return likeFactories()
        .flatMap(f -> devices().map(d -> Arguments.of(f.get()[0], f.get()[1], d)));
  }

  @ParameterizedTest(name = "{0} of a tensor on {2}")
  @MethodSource("likeFactoriesOnDevices")
  void likeFactoriesTakeTheDeviceOfTheirArgument(
      String name, Function<Tensor, Tensor> like, Device device) {
    Tensor model = Tensor.zeros(Shape.of(2, 3), DType.FLOAT64, device);
    Tensor t = like.apply(model);
    assertEquals(device, t.device());
    assertEquals(Shape.of(2, 3), t.shape());
    assertEquals(DType.FLOAT64, t.dtype());
  }

  @Test
  void likeFactoriesKeepAnIntegerDtype() {
    Tensor model = Tensor.arange(0, 4, CUDA1);
    Tensor zeros = Tensor.zerosLike(model);
    assertEquals(CUDA1, zeros.device());
    assertEquals(DType.INT64, zeros.dtype());
    assertArrayEquals(new long[] {0, 0, 0, 0}, zeros.toLongArray());
  }

  @ParameterizedTest
  @MethodSource("devices")
  void opResultsStayOnTheDeviceOfTheirOperands(Device device) {
    Tensor x = Tensor.randn(3, 3, device);
    Tensor index = Tensor.arange(0, 3, device).reshape(3, 1);
    for (Tensor t :
        List.of(
            x.add(x),
            x.mul(2.0),
            x.matmul(x),
            x.sum(),
            x.sum(0),
            x.relu(),
            x.t(),
            x.reshape(9),
            x.softmax(1),
            x.gt(0.0),
            x.gather(1, index),
            Tensor.cat(List.of(x, x), 0),
            Tensor.stack(List.of(x, x), 0),
            Tensor.where(x.gt(0.0), x, x.neg()),
            x.maskedFill(x.lt(0.0), 0.0),
            x.max(1, false).indices(),
            x.clone(),
            x.to(DType.FLOAT64),
            x.select(0, 1),
            x.detach())) {
      assertEquals(device, t.device());
    }
  }

  // ---------------------------------------------------------------- mismatches

  private static DeviceMismatchException mismatch(Runnable op) {
    return assertThrows(DeviceMismatchException.class, op::run);
  }

  @Test
  void addOnCudaAndCpuHasPyTorchsMessage() {
    Tensor a = Tensor.ones(2, 2, CUDA0);
    Tensor b = Tensor.ones(2, 2);
    DeviceMismatchException e = mismatch(() -> a.add(b));
    assertEquals(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
            + " (argument 'other' of add)",
        e.getMessage());
    assertEquals(CUDA0, e.expected());
    assertEquals(CPU, e.found());
    assertEquals("other", e.argument());
    assertEquals("add", e.op());
  }

  @Test
  void addOnCpuAndCudaNamesTheDevicesInOperandOrder() {
    Tensor a = Tensor.ones(2, 2);
    Tensor b = Tensor.ones(2, 2, CUDA0);
    assertEquals(
        "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0!"
            + " (argument 'other' of add)",
        mismatch(() -> a.add(b)).getMessage());
  }

  @Test
  void matmulOnCudaAndCpuHasPyTorchsMessage() {
    Tensor a = Tensor.ones(2, 3, CUDA0);
    Tensor b = Tensor.ones(3, 2);
    assertEquals(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
            + " (argument 'other' of matmul)",
        mismatch(() -> a.matmul(b)).getMessage());
  }

  @Test
  void twoCudaDevicesAreAMismatchToo() {
    Tensor a = Tensor.ones(2, 2, CUDA0);
    Tensor b = Tensor.ones(2, 2, CUDA1);
    assertEquals(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1!"
            + " (argument 'other' of add)",
        mismatch(() -> a.add(b)).getMessage());
    assertEquals(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1!"
            + " (argument 'other' of matmul)",
        mismatch(() -> a.matmul(b)).getMessage());
  }

  /** An op on a tensor of {@code here} and one of {@code there}: name, op, argument named. */
  static Stream<Arguments> mismatchedOps() {
    return Stream.of(
        Arguments.of("add", (BinaryOperator<Tensor>) Tensor::add, "other"),
        Arguments.of("sub", (BinaryOperator<Tensor>) Tensor::sub, "other"),
        Arguments.of("mul", (BinaryOperator<Tensor>) Tensor::mul, "other"),
        Arguments.of("div", (BinaryOperator<Tensor>) Tensor::div, "other"),
        Arguments.of("pow", (BinaryOperator<Tensor>) Tensor::pow, "other"),
        Arguments.of("maximum", (BinaryOperator<Tensor>) Tensor::maximum, "other"),
        Arguments.of("minimum", (BinaryOperator<Tensor>) Tensor::minimum, "other"),
        Arguments.of("eq", (BinaryOperator<Tensor>) Tensor::eq, "other"),
        Arguments.of("lt", (BinaryOperator<Tensor>) Tensor::lt, "other"),
        Arguments.of("logicalAnd", (BinaryOperator<Tensor>) Tensor::logicalAnd, "other"),
        Arguments.of("matmul", (BinaryOperator<Tensor>) Tensor::matmul, "other"),
        Arguments.of(
            "where", (BinaryOperator<Tensor>) (a, b) -> Tensor.where(a.gt(0.0), a, b), "other"),
        Arguments.of(
            "where", (BinaryOperator<Tensor>) (a, b) -> Tensor.where(a.gt(0.0), b, a), "input"),
        Arguments.of(
            "gather", (BinaryOperator<Tensor>) (a, b) -> a.gather(1, b.to(DType.INT64)), "index"),
        Arguments.of(
            "indexSelect",
            (BinaryOperator<Tensor>) (a, b) -> a.indexSelect(0, b.select(0, 0).to(DType.INT64)),
            "index"),
        Arguments.of(
            "cat", (BinaryOperator<Tensor>) (a, b) -> Tensor.cat(List.of(a, b), 0), "tensors"),
        Arguments.of(
            "maskedFill", (BinaryOperator<Tensor>) (a, b) -> a.maskedFill(b.gt(0.0), 1.0), "mask"),
        Arguments.of("addi", (BinaryOperator<Tensor>) Tensor::addi, "other"),
        Arguments.of("subi", (BinaryOperator<Tensor>) Tensor::subi, "other"),
        Arguments.of("muli", (BinaryOperator<Tensor>) Tensor::muli, "other"),
        Arguments.of("divi", (BinaryOperator<Tensor>) Tensor::divi, "other"));
  }

  static Stream<Arguments> mismatchedOpsOnDevicePairs() {
    return mismatchedOps()
        .flatMap(
            op ->
                Stream.of(
                    Arguments.of(op.get()[0], op.get()[1], op.get()[2], CUDA0, CPU),
                    Arguments.of(op.get()[0], op.get()[1], op.get()[2], CPU, CUDA0),
                    Arguments.of(op.get()[0], op.get()[1], op.get()[2], CUDA0, CUDA1)));
  }

  @ParameterizedTest(name = "{0}: {3} and {4}")
  @MethodSource("mismatchedOpsOnDevicePairs")
  void opsOnTwoDevicesThrowNamingTheArgument(
      String op, BinaryOperator<Tensor> apply, String argument, Device here, Device there) {
    Tensor a = Tensor.ones(2, 2, here);
    Tensor b = Tensor.ones(2, 2, there);
    DeviceMismatchException e =
        mismatch(
            () -> {
              Tensor unused = apply.apply(a, b);
            });
    assertEquals(op, e.op());
    assertEquals(argument, e.argument());
    assertTrue(
        e.getMessage()
            .startsWith(
                "Expected all tensors to be on the same device, but found at least two devices, "),
        e.getMessage());
    assertTrue(
        e.getMessage().endsWith("! (argument '" + argument + "' of " + op + ")"), e.getMessage());
    assertTrue(
        e.getMessage().contains(here.toString()) && e.getMessage().contains(there.toString()),
        e.getMessage());
    assertTrue(
        (e.expected().equals(here) && e.found().equals(there))
            || (e.expected().equals(there) && e.found().equals(here)),
        e.expected() + " / " + e.found());
  }

  @Test
  void aFailedInPlaceOpLeavesItsTensorUnchanged() {
    Tensor a = Tensor.ones(2, CUDA0);
    mismatch(() -> a.addi(Tensor.ones(2)));
    assertArrayEquals(new float[] {1, 1}, a.toFloatArray());
  }

  @Test
  void stackOnTwoDevicesThrows() {
    Tensor a = Tensor.ones(2, CUDA0);
    Tensor b = Tensor.ones(2);
    assertEquals("tensors", mismatch(() -> Tensor.stack(List.of(a, b), 0)).argument());
  }

  @Test
  void whereWithTheConditionOnAnotherDeviceThrows() {
    Tensor cond = Tensor.of(true, false);
    Tensor a = Tensor.ones(2, CUDA0);
    DeviceMismatchException e = mismatch(() -> Tensor.where(cond, a, a));
    assertEquals("where", e.op());
  }

  @Test
  void aDeviceMismatchIsAnIllegalArgument() {
    Tensor a = Tensor.ones(2, CUDA0);
    Tensor b = Tensor.ones(2);
    assertThrows(IllegalArgumentException.class, () -> a.add(b));
  }

  // ---------------------------------------------------------------- the 0-dim CPU scalar exception

  static Stream<Device> cudaDevices() {
    return Stream.of(CUDA0, CUDA1);
  }

  @ParameterizedTest
  @MethodSource("cudaDevices")
  void aZeroDimCpuTensorIsAScalarInBothOperandOrders(Device device) {
    Tensor x = Tensor.of(new float[] {1, 2, 4}, Shape.of(3), device);
    Tensor s = Tensor.scalar(2.0);
    DeviceStats.reset();

    Tensor[] results = {
      x.add(s),
      s.add(x),
      x.sub(s),
      s.sub(x),
      x.mul(s),
      s.mul(x),
      x.div(s),
      s.div(x),
      x.maximum(s),
      s.minimum(x)
    };
    for (Tensor r : results) {
      assertEquals(device, r.device());
    }
    Tensor gt = x.gt(s);
    assertEquals(device, gt.device());
    assertEquals(0, DeviceStats.of(device).hostToDeviceCopies(), "a CPU scalar is not transferred");
    assertEquals(0, DeviceStats.of(device).syncs(), "a CPU scalar needs no synchronisation");

    assertArrayEquals(new float[] {3, 4, 6}, results[0].toFloatArray());
    assertArrayEquals(new float[] {3, 4, 6}, results[1].toFloatArray());
    assertArrayEquals(new float[] {-1, 0, 2}, results[2].toFloatArray());
    assertArrayEquals(new float[] {1, 0, -2}, results[3].toFloatArray());
    assertArrayEquals(new float[] {2, 4, 8}, results[4].toFloatArray());
    assertArrayEquals(new float[] {2, 4, 8}, results[5].toFloatArray());
    assertArrayEquals(new float[] {0.5f, 1, 2}, results[6].toFloatArray());
    assertArrayEquals(new float[] {2, 1, 0.5f}, results[7].toFloatArray());
    assertArrayEquals(new float[] {2, 2, 4}, results[8].toFloatArray());
    assertArrayEquals(new float[] {1, 2, 2}, results[9].toFloatArray());
    assertArrayEquals(new boolean[] {false, false, true}, gt.toBooleanArray());
  }

  @Test
  void aZeroDimCpuScalarKeepsTheDtypeOfTheDimensionedOperand() {
    Tensor x = Tensor.of(new float[] {1, 2}, Shape.of(2), CUDA0);
    Tensor r = x.add(Tensor.scalar(3L));
    assertEquals(CUDA0, r.device());
    assertEquals(DType.FLOAT32, r.dtype());
    assertArrayEquals(new float[] {4, 5}, r.toFloatArray());
  }

  @Test
  void aZeroDimCpuScalarBesideAZeroDimCudaTensorGivesCuda() {
    Tensor c = Tensor.scalar(5.0, CUDA0);
    Tensor s = Tensor.scalar(2.0);
    assertEquals(CUDA0, c.add(s).device());
    assertEquals(CUDA0, s.add(c).device());
    assertEquals(3.0, c.sub(s).item());
    assertEquals(-3.0, s.sub(c).item());
  }

  @Test
  void aZeroDimCpuScalarWorksInWhere() {
    Tensor x = Tensor.of(new float[] {-1, 2, -3}, Shape.of(3), CUDA0);
    Tensor zero = Tensor.scalar(0.0);
    DeviceStats.reset();
    Tensor a = Tensor.where(x.gt(0.0), x, zero);
    Tensor b = Tensor.where(x.gt(0.0), zero, x);
    assertEquals(CUDA0, a.device());
    assertEquals(CUDA0, b.device());
    assertEquals(0, DeviceStats.of(CUDA0).hostToDeviceCopies());
    assertArrayEquals(new float[] {0, 2, 0}, a.toFloatArray());
    assertArrayEquals(new float[] {-1, 0, -3}, b.toFloatArray());
  }

  @Test
  void aZeroDimCpuConditionWorksInWhere() {
    Tensor yes = Tensor.scalar(1.0).gt(0.0);
    assertEquals(0, yes.dim());
    Tensor a = Tensor.of(new float[] {1, 2}, Shape.of(2), CUDA0);
    Tensor b = Tensor.of(new float[] {3, 4}, Shape.of(2), CUDA0);
    Tensor r = Tensor.where(yes, a, b);
    assertEquals(CUDA0, r.device());
    assertArrayEquals(new float[] {1, 2}, r.toFloatArray());
  }

  @Test
  void aZeroDimCpuScalarWorksInPlaceOnADeviceTensor() {
    Tensor x = Tensor.of(new float[] {1, 2}, Shape.of(2), CUDA0);
    DeviceStats.reset();
    assertSame(x, x.addi(Tensor.scalar(10.0)));
    assertSame(x, x.muli(Tensor.scalar(2.0)));
    assertEquals(0, DeviceStats.of(CUDA0).hostToDeviceCopies());
    assertArrayEquals(new float[] {22, 24}, x.toFloatArray());
  }

  @Test
  void theGradientOfACpuScalarGoesBackToTheCpu() {
    Tensor s = Tensor.scalar(3.0).requiresGrad(true);
    Tensor x = Tensor.of(new float[] {1, 2, 4}, Shape.of(3), CUDA0);
    x.mul(s).sum().backward();
    assertEquals(CPU, s.grad().device());
    assertEquals(7.0, s.grad().item());
  }

  @Test
  void aOneElementCpuVectorIsNotAScalar() {
    Tensor x = Tensor.ones(3, CUDA0);
    Tensor one = Tensor.of(2f);
    assertEquals(1, one.numel());
    assertEquals(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
            + " (argument 'other' of add)",
        mismatch(() -> x.add(one)).getMessage());
    assertEquals(
        "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0!"
            + " (argument 'other' of add)",
        mismatch(() -> one.add(x)).getMessage());
    mismatch(() -> x.add(Tensor.of(new float[] {2}, 1, 1)));
    mismatch(() -> Tensor.where(x.gt(0.0), x, one));
    mismatch(() -> x.addi(one));
  }

  @Test
  void aZeroDimCudaTensorIsNotAScalarBesideACpuTensor() {
    Tensor cpu = Tensor.ones(3);
    Tensor c = Tensor.scalar(2.0, CUDA0);
    mismatch(() -> cpu.add(c));
    mismatch(() -> c.add(cpu));
  }

  @Test
  void aZeroDimCpuTensorCannotReceiveAnInPlaceResultFromADevice() {
    Tensor s = Tensor.scalar(1.0);
    Tensor c = Tensor.scalar(2.0, CUDA0);
    DeviceMismatchException e = mismatch(() -> s.addi(c));
    assertEquals("addi", e.op());
    assertEquals(1.0, s.item(), "the CPU scalar is unchanged");
  }
}
