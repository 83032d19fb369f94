package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Device values: PyTorch's device-string grammar, its error messages, equality and description. */
class DeviceTest {

  // ---------------------------------------------------------------- parsing what PyTorch accepts

  @Test
  void parsesCpu() {
    Device d = Device.parse("cpu");
    assertEquals(Device.cpu(), d);
    assertEquals(DeviceType.CPU, d.type());
    assertTrue(d.isCpu());
    assertFalse(d.isCuda());
    assertFalse(d.hasIndex());
    assertEquals(-1, d.index());
  }

  @Test
  void parsesCudaWithoutIndexAsTheCurrentDevice() {
    Device d = Device.parse("cuda");
    assertEquals(Device.cuda(), d);
    assertEquals(DeviceType.CUDA, d.type());
    assertTrue(d.isCuda());
    assertFalse(d.hasIndex());
    assertEquals(-1, d.index());
  }

  @Test
  void parsesIndexedCuda() {
    Device d0 = Device.parse("cuda:0");
    assertEquals(Device.cuda(0), d0);
    assertTrue(d0.hasIndex());
    assertEquals(0, d0.index());

    Device d12 = Device.parse("cuda:12");
    assertEquals(Device.cuda(12), d12);
    assertEquals(12, d12.index());
  }

  @Test
  void parsesTheLargestIndex() {
    assertEquals(Short.MAX_VALUE, Device.parse("cuda:" + Short.MAX_VALUE).index());
  }

  @Test
  void cpuZeroIsTheCpu() {
    Device d = Device.parse("cpu:0");
    assertEquals(Device.cpu(), d);
    assertEquals("cpu", d.toString());
  }

  // ---------------------------------------------------------------- parsing errors

  private static IllegalArgumentException parseError(String spec) {
    return assertThrows(
        IllegalArgumentException.class, () -> Device.parse(spec), "parse(" + spec + ")");
  }

  private static void assertMessageContains(String spec, String... parts) {
    String message = parseError(spec).getMessage();
    for (String part : parts) {
      assertTrue(
          message.contains(part),
          "message for '" + spec + "' should contain <" + part + ">: " + message);
    }
  }

  @Test
  void rejectsNull() {
    assertMessageContains(null, "null", "\"cpu\", \"cuda\" or \"cuda:N\"");
  }

  @Test
  void rejectsTheEmptyString() {
    assertMessageContains("", "empty", "\"cpu\", \"cuda\" or \"cuda:N\"");
  }

  @Test
  void rejectsLeadingZerosAndSuggestsTheIndex() {
    assertMessageContains("cuda:01", "'cuda:01'", "leading zeros", "\"cuda:1\"");
    assertMessageContains("cuda:007", "'cuda:007'", "leading zeros", "\"cuda:7\"");
    assertMessageContains("cuda:00", "leading zeros", "\"cuda:0\"");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "cuda:",
        "cuda:x",
        "cuda:-1",
        "cuda:+1",
        "cuda:1.0",
        "cuda: 1",
        "cuda:1 ",
        "cuda:0:1"
      })
  void rejectsIndicesThatAreNotNonNegativeIntegers(String spec) {
    assertMessageContains(spec, "'" + spec + "'", "non-negative integer");
  }

  @Test
  void rejectsSurroundingWhitespace() {
    assertMessageContains(" cuda", "' cuda'", "unknown device type");
    assertMessageContains("cpu ", "'cpu '", "unknown device type");
  }

  @ParameterizedTest
  @ValueSource(strings = {"CUDA", "Cuda", "CPU", "CUDA:0"})
  void rejectsUpperCaseWithALowerCaseHint(String spec) {
    String typeName = spec.contains(":") ? spec.substring(0, spec.indexOf(':')) : spec;
    assertMessageContains(
        spec, "'" + spec + "'", "lower case", "\"" + typeName.toLowerCase(Locale.ROOT) + "\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"mps", "mps:0"})
  void rejectsMpsSayingThereIsNoMetalBackend(String spec) {
    assertMessageContains(spec, "'mps'", "no Metal");
  }

  @ParameterizedTest
  @ValueSource(strings = {"xla", "hip", "xpu", "meta", "xla:0"})
  void rejectsBackendsThisRuntimeDoesNotHave(String spec) {
    String typeName = spec.contains(":") ? spec.substring(0, spec.indexOf(':')) : spec;
    assertMessageContains(spec, "no " + typeName + " backend", "cpu and cuda");
  }

  @ParameterizedTest
  @ValueSource(strings = {"foo", "gpu", "cud", "cuda0", ":0"})
  void rejectsUnknownTypes(String spec) {
    assertMessageContains(
        spec, "'" + spec + "'", "unknown device type", "\"cpu\", \"cuda\" or \"cuda:N\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"cuda:99999999999", "cuda:32768", "cuda:2147483648"})
  void rejectsIndicesThatAreTooLarge(String spec) {
    assertMessageContains(spec, "'" + spec + "'", "too large");
  }

  @ParameterizedTest
  @ValueSource(strings = {"cpu:1", "cpu:7"})
  void rejectsCpuIndicesOtherThanZero(String spec) {
    assertMessageContains(spec, "'" + spec + "'", "CPU device index must be 0");
  }

  @Test
  void rejectsNegativeIndicesInTheFactory() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Device.cuda(-1));
    assertTrue(e.getMessage().contains("-1"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Device.cuda(Short.MAX_VALUE + 1));
  }

  // ---------------------------------------------------------------- values

  @Test
  void cudaWithoutIndexIsNotCudaZero() {
    assertNotEquals(Device.cuda(), Device.cuda(0));
    assertNotEquals(Device.parse("cuda"), Device.parse("cuda:0"));
  }

  @Test
  void equalDevicesHaveEqualHashCodes() {
    assertEquals(Device.cuda(3), Device.parse("cuda:3"));
    assertEquals(Device.cuda(3).hashCode(), Device.parse("cuda:3").hashCode());
    assertEquals(Device.cuda(), Device.parse("cuda"));
    assertEquals(Device.cuda().hashCode(), Device.parse("cuda").hashCode());
    assertEquals(Device.cpu().hashCode(), Device.parse("cpu:0").hashCode());
  }

  @Test
  void differentDevicesAreNotEqual() {
    assertNotEquals(Device.cuda(0), Device.cuda(1));
    assertNotEquals(Device.cpu(), Device.cuda());
    assertNotEquals(Device.cpu(), Device.cuda(0));
    assertNotEquals(Device.cpu(), "cpu");
    assertNotEquals(Device.cpu(), null);
  }

  static Stream<Arguments> deviceStrings() {
    return Stream.of(
        Arguments.of(Device.cpu(), "cpu"),
        Arguments.of(Device.cuda(), "cuda"),
        Arguments.of(Device.cuda(0), "cuda:0"),
        Arguments.of(Device.cuda(1), "cuda:1"),
        Arguments.of(Device.cuda(12), "cuda:12"));
  }

  @ParameterizedTest
  @MethodSource("deviceStrings")
  void toStringIsTheDeviceStringAndParsesBack(Device device, String string) {
    assertEquals(string, device.toString());
    assertEquals(device, Device.parse(device.toString()));
  }

  @Test
  void resolvedFillsInTheCurrentCudaDevice() {
    assertEquals(Device.cuda(0), Device.cuda().resolved());
    assertTrue(Device.cuda().resolved().hasIndex());
    assertSame(Device.cpu(), Device.cpu().resolved());
    Device one = Device.cuda(1);
    assertSame(one, one.resolved());
  }

  @Test
  void describeMarksEmulatedDevices() {
    assertEquals("cuda:0 (emulated)", Device.cuda(0).describe());
    assertEquals("cuda:1 (emulated)", Device.cuda(1).describe());
    assertEquals("cuda (emulated)", Device.cuda().describe());
    assertEquals("cpu", Device.cpu().describe());
  }

  @Test
  void describeDoesNotMarkDevicesThatDoNotExist() {
    assertEquals("cuda:5", Device.cuda(5).describe());
    try (EmulatedCuda.Installation ignored = EmulatedCuda.install(0)) {
      assertEquals("cuda:0", Device.cuda(0).describe());
    }
  }

  @Test
  void deviceTypesHavePyTorchLabels() {
    assertEquals("cpu", DeviceType.CPU.label());
    assertEquals("cuda", DeviceType.CUDA.label());
    assertEquals("cuda", DeviceType.CUDA.toString());
  }
}
