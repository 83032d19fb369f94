/**
 * OnDevice's runtime: tensors, autograd, devices, layers, optimizers, data loading and checkpoints.
 * Only the user packages are exported; {@code dev.ondevice.internal.*} holds the backends and the
 * interface layer they share (docs/architecture.md), found by device type through {@link
 * java.util.ServiceLoader}.
 *
 * <p>JCuda's jars have no module descriptor: {@code jcuda} and {@code jcublas} are the automatic
 * modules named after the jar files of the pinned version (docs/architecture.md).
 */
@SuppressWarnings("requires-automatic")
module dev.ondevice {
  requires transitive dev.ondevice.annotations;
  requires com.fasterxml.jackson.core;
  requires org.bytedeco.javacpp;
  requires org.bytedeco.openblas;
  requires org.bytedeco.dnnl;
  requires org.bytedeco.opencl;
  requires jcuda;
  requires jcublas;
  requires java.management;
  requires jdk.management;

  exports dev.ondevice;
  exports dev.ondevice.data;
  exports dev.ondevice.io;
  exports dev.ondevice.nn;
  exports dev.ondevice.optim;
  exports dev.ondevice.train;

  uses dev.ondevice.internal.backend.BackendProvider;
  uses dev.ondevice.internal.backend.OutOfMemoryFactory;

  provides dev.ondevice.internal.backend.BackendProvider with
      dev.ondevice.internal.cpu.CpuBackendProvider,
      dev.ondevice.internal.cpu.EmulatedCudaProvider,
      dev.ondevice.internal.cuda.CudaBackendProvider;
  provides dev.ondevice.internal.backend.OutOfMemoryFactory with
      dev.ondevice.internal.core.DeviceOutOfMemoryFactory;
}
