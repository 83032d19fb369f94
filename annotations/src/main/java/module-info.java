/**
 * The annotations of OnDevice: {@code @Buffer} and {@code @OnDevice} on model fields, and the
 * device contracts of the runtime's methods that the processor's analysis reads.
 */
module dev.ondevice.annotations {
  exports dev.ondevice.annotations;
}
