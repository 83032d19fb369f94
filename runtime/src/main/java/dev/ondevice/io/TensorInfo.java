package dev.ondevice.io;

/**
 * One tensor entry of a safetensors header: its name, its dtype in the file, its shape and where
 * its data is, relative to the start of the data.
 */
final class TensorInfo {
  final String name;
  final Safetensors.FileDtype dtype;
  final long[] shape;
  final long begin;
  final long end;

  TensorInfo(String name, Safetensors.FileDtype dtype, long[] shape, long begin, long end) {
    this.name = name;
    this.dtype = dtype;
    this.shape = shape;
    this.begin = begin;
    this.end = end;
  }
}
