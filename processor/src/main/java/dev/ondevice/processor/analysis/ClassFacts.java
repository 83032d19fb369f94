package dev.ondevice.processor.analysis;

import com.sun.source.util.TreePath;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.VariableElement;

/**
 * What the analysis reads from the source of other classes of the compilation: whether a model's
 * method may move its model, where the tensors it returns are and which of its tensor parameters it
 * uses on any device ({@link ModelMethodSource}), the device a final {@code Device} field is
 * initialised with, the value of a static tensor field. Kept for the whole compilation, as javac
 * discards a class's trees once it has generated its class file: each class's facts are recorded
 * while it is analysed, so that a class analysed later gets the same answers whatever the order of
 * the source files.
 */
final class ClassFacts {
  /** Per model method: whether it may move its model. */
  final IdentityHashMap<ExecutableElement, Boolean> movesItsModel = new IdentityHashMap<>();

  /** Per model method: where the tensors it returns are. */
  final IdentityHashMap<ExecutableElement, ModelMethodSource.Returns> returns =
      new IdentityHashMap<>();

  /** Per model method: for each parameter, whether it is a tensor the method uses on any device. */
  final IdentityHashMap<ExecutableElement, boolean[]> deviceNeutralParameters =
      new IdentityHashMap<>();

  /**
   * Per private model method: for each parameter, whether it is a {@code Device} every call gives
   * the model's device.
   */
  final IdentityHashMap<ExecutableElement, boolean[]> modelsDeviceParameters =
      new IdentityHashMap<>();

  /**
   * Per method: whether every call returns a model it has just made and not moved ({@link
   * HelperResults}).
   */
  final IdentityHashMap<ExecutableElement, Boolean> returnsNewModel = new IdentityHashMap<>();

  /**
   * Per method: whether every call returns a tensor a factory made on the CPU for want of a device
   * ({@link HelperResults}).
   */
  final IdentityHashMap<ExecutableElement, Boolean> returnsCpuFactoryTensor =
      new IdentityHashMap<>();

  /**
   * The model methods whose parameters were judged from their source (the others have none here).
   */
  final Set<ExecutableElement> judgedFromSource =
      Collections.newSetFromMap(new IdentityHashMap<>());

  /**
   * Per final {@code Device} field without an initializer that every object made holds as one
   * device ({@link ConstructedDevices}): the {@code new}s that make them.
   */
  final IdentityHashMap<VariableElement, List<TreePath>> constructedAt = new IdentityHashMap<>();

  /** Per final {@code Device} field: its initializer's device, or null where that is not known. */
  final IdentityHashMap<VariableElement, Place> finalDevices = new IdentityHashMap<>();

  /**
   * Per final instance tensor field of a class that is not a model: whether its initializer makes
   * it on the CPU.
   */
  final IdentityHashMap<VariableElement, Boolean> finalFieldsOnTheCpu = new IdentityHashMap<>();

  /**
   * Per mutable tensor field of a class that is not a model: the initializer that puts it on the
   * CPU for good ({@link CpuAccumulators}), or an empty path where there is none.
   */
  final IdentityHashMap<VariableElement, Optional<TreePath>> cpuAccumulators =
      new IdentityHashMap<>();

  /**
   * Per model class: the final {@code Device} field its constructors move it to, or null ({@link
   * DeviceField}).
   */
  final IdentityHashMap<javax.lang.model.element.TypeElement, VariableElement> deviceFields =
      new IdentityHashMap<>();

  /** Per model class: whether its constructors place its parts on devices of their own. */
  final IdentityHashMap<javax.lang.model.element.TypeElement, Boolean> placesParts =
      new IdentityHashMap<>();

  /**
   * Per constructor of an optimizer class: whether its body makes tensors ({@link
   * OptimizerStateOrder}).
   */
  final IdentityHashMap<ExecutableElement, Boolean> constructorMakesTensors =
      new IdentityHashMap<>();

  /** The methods that run once per step without a {@code @Step}. */
  final StepMethods steps = new StepMethods();

  /** Per static tensor field: its value. */
  final IdentityHashMap<VariableElement, Value> staticFields = new IdentityHashMap<>();
}
