package dev.ondevice;

import dev.ondevice.annotations.Factory;
import dev.ondevice.annotations.HostSync;
import dev.ondevice.annotations.InPlace;
import dev.ondevice.annotations.Move;
import dev.ondevice.annotations.NonBlocking;
import dev.ondevice.annotations.ReturnsDevice;
import dev.ondevice.annotations.SameDevice;
import dev.ondevice.annotations.ZeroDim;

/** Stub of the runtime's Tensor: a subset of its methods with the same device annotations. */
@SameDevice
public class Tensor {
  @Factory
  public static Tensor zeros(@dev.ondevice.annotations.ZeroDim long... shape) {
    return null;
  }

  @Factory
  public static Tensor zeros(long d0, long d1, Device device) {
    return null;
  }

  @Factory
  public static Tensor zeros(Shape shape) {
    return null;
  }

  @Factory
  public static Tensor full(Shape shape, double value) {
    return null;
  }

  @Factory
  public static Tensor ones(Shape shape) {
    return null;
  }

  @Factory
  public static Tensor ones(Shape shape, Device device) {
    return null;
  }

  @Factory
  public static Tensor randn(@dev.ondevice.annotations.ZeroDim long... shape) {
    return null;
  }

  @Factory
  public static Tensor randn(long d0, long d1, Device device) {
    return null;
  }

  @Factory(zeroDim = true)
  public static Tensor scalar(double value) {
    return null;
  }

  @Factory(fromHostData = true)
  public static Tensor of(float... data) {
    return null;
  }

  @Factory
  public static Tensor zerosLike(Tensor t) {
    return null;
  }

  @Move
  public Tensor to(Device device) {
    return this;
  }

  @Move
  public Tensor to(Device device, @NonBlocking boolean nonBlocking) {
    return this;
  }

  @Move(to = "cpu")
  @HostSync
  public Tensor cpu() {
    return this;
  }

  @Move(to = "cpu", pins = true)
  public Tensor pinMemory() {
    return this;
  }

  public Tensor add(Tensor other) {
    return this;
  }

  public Tensor mul(Tensor other) {
    return this;
  }

  public Tensor indexSelect(int dim, Tensor index) {
    return this;
  }

  public void backward() {}

  public Tensor get(long... indices) {
    return this;
  }

  public Tensor detach() {
    return this;
  }

  public Tensor grad() {
    return this;
  }

  @ZeroDim
  public Tensor sum() {
    return this;
  }

  @InPlace
  public Tensor addi(Tensor other) {
    return this;
  }

  @InPlace(crossDevice = true)
  public Tensor copyFrom(Tensor src) {
    return this;
  }

  @HostSync
  public double item() {
    return 0;
  }

  @HostSync
  public float[] toFloatArray() {
    return null;
  }

  @ReturnsDevice(ReturnsDevice.Source.OF_RECEIVER)
  public Device device() {
    return null;
  }

  public static Tensor cat(java.util.List<Tensor> tensors, int dim) {
    return null;
  }

  public static Tensor stack(java.util.List<Tensor> tensors) {
    return null;
  }

  @dev.ondevice.annotations.ReadinessCheck
  public boolean isReady() {
    return true;
  }

  @Override
  @HostSync
  public String toString() {
    return "";
  }
}
