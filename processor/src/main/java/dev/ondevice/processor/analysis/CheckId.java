package dev.ondevice.processor.analysis;

/**
 * The checks of the device analysis: a stable ID (used in messages, {@code @SuppressWarnings} and
 * the {@code -Aondevice.check.<ID>} options), a default severity, a one-line summary, and a page
 * {@code docs/checks/<ID>.md}.
 */
public enum CheckId {
  /**
   * {@code DiscardedMove}: a tensor move whose result is discarded: tensors do not move in place.
   */
  DISCARDED_MOVE(
      "DiscardedMove",
      Severity.ERROR,
      "A tensor move whose result is discarded: tensors do not move in place"),
  /**
   * {@code DiscardedTensorOp}: a tensor op whose result is discarded: tensor ops return a new
   * tensor.
   */
  DISCARDED_TENSOR_OP(
      "DiscardedTensorOp",
      Severity.ERROR,
      "A tensor op whose result is discarded: tensor ops return a new tensor"),
  /**
   * {@code MixedDevices}: tensors on provably different devices meet in one op, model call or loss.
   */
  MIXED_DEVICES(
      "MixedDevices",
      Severity.ERROR,
      "Tensors on provably different devices meet in one op, model call or loss"),
  /**
   * {@code TargetsNotMoved}: batch targets left on the CPU while the inputs were moved to the
   * device.
   */
  TARGETS_NOT_MOVED(
      "TargetsNotMoved",
      Severity.ERROR,
      "Batch targets left on the CPU while the inputs were moved to the device"),
  /**
   * {@code DefaultDeviceInModel}: a tensor created on the default device inside a model meets the
   * model's state or inputs.
   */
  DEFAULT_DEVICE_IN_MODEL(
      "DefaultDeviceInModel",
      Severity.ERROR,
      "A tensor created on the default device inside a model meets the model's state or inputs"),
  /**
   * {@code HostSyncInLoop}: a host synchronisation (item, toArray, cpu, printing) inside the batch
   * loop.
   */
  HOST_SYNC_IN_LOOP(
      "HostSyncInLoop",
      Severity.WARNING,
      "A host synchronisation (item, toArray, cpu, printing) inside the batch loop"),
  /** {@code CreateThenMove}: a tensor created on the CPU and moved to a device right away. */
  CREATE_THEN_MOVE(
      "CreateThenMove",
      Severity.WARNING,
      "A tensor created on the CPU and moved to a device right away"),
  /**
   * {@code HardCodedDevice}: a tensor moved to a device written into the code, where the code
   * around it follows a device variable.
   */
  HARD_CODED_DEVICE(
      "HardCodedDevice",
      Severity.WARNING,
      "A tensor moved to a device written into the code, where the code around it follows a device variable"),
  /** {@code NonBlockingFromPageable}: a non-blocking copy from host memory that is not pinned. */
  NON_BLOCKING_FROM_PAGEABLE(
      "NonBlockingFromPageable",
      Severity.WARNING,
      "A non-blocking copy from host memory that is not pinned"),
  /**
   * {@code UnsyncedNonBlockingRead}: the result of a non-blocking copy to the host read before a
   * synchronisation.
   */
  UNSYNCED_NON_BLOCKING_READ(
      "UnsyncedNonBlockingRead",
      Severity.ERROR,
      "The result of a non-blocking copy to the host read before a synchronisation"),
  /** {@code ModelNotMoved}: a model that was never moved is used with tensors on another device. */
  MODEL_NOT_MOVED(
      "ModelNotMoved",
      Severity.ERROR,
      "A model that was never moved is used with tensors on another device"),
  /**
   * {@code OptimizerStateLeftBehind}: optimizer state loaded onto a model's parameters, which then
   * move without it.
   */
  OPTIMIZER_STATE_LEFT_BEHIND(
      "OptimizerStateLeftBehind",
      Severity.ERROR,
      "Optimizer state loaded onto a model's parameters, which then move without it"),
  /**
   * {@code StaticTensorConstant}: a static tensor constant, on the CPU, meets tensors on another
   * device.
   */
  STATIC_TENSOR_CONSTANT(
      "StaticTensorConstant",
      Severity.ERROR,
      "A static tensor constant, on the CPU, meets tensors on another device"),
  /**
   * {@code LocalModelClass}: a model class declared as a local or anonymous class, for which no
   * code can be generated.
   */
  LOCAL_MODEL_CLASS(
      "LocalModelClass",
      Severity.ERROR,
      "A model class declared as a local or anonymous class, for which no code can be generated"),
  /** {@code DeviceAnalysisFailure}: the device analysis failed on a method, which was skipped. */
  ANALYSIS_FAILURE(
      "DeviceAnalysisFailure",
      Severity.WARNING,
      "The device analysis failed on a method, which was skipped");

  private final String id;
  private final Severity defaultSeverity;
  private final String summary;

  CheckId(String id, Severity defaultSeverity, String summary) {
    this.id = id;
    this.defaultSeverity = defaultSeverity;
    this.summary = summary;
  }

  /** The stable ID, as {@code MixedDevices}. */
  public String id() {
    return id;
  }

  /** The severity unless an option says otherwise. */
  public Severity defaultSeverity() {
    return defaultSeverity;
  }

  /** One line saying what the check finds. */
  public String summary() {
    return summary;
  }
}
