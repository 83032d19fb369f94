package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;

/**
 * PyTorch tutorials, "PyTorch: Tensors and autograd": the same polynomial fit with the gradients
 * from autograd, the weights updated under {@code torch.no_grad()} and their gradients reset after
 * each step.
 *
 * <p>Source: https://github.com/pytorch/tutorials/blob/02e5a75dc17eec70591fbfc71b6e53b390083c3a/beginner_source/examples_autograd/polynomial_autograd.py
 *
 * <p>Ported: The tutorial sets the accelerator as the default device ({@code torch.set_default_device}); there
 * is no default device here, so each factory is given the device. {@code torch.linspace} is an
 * {@code arange} of the same points; resetting the gradients to {@code 0.} is {@code setGrad(null)}
 * (the tutorial's commented-out alternative); 300 steps instead of 2000. The loss is read every 100
 * steps, as the tutorial does.
 *
 * <p>Outcome: completes
 */
public final class TutorialsPolynomialAutograd {
  private TutorialsPolynomialAutograd() {}

  public static void run(Device device) {
    DType dtype = DType.FLOAT32;
    System.out.println("Using " + device + " device");

    // Create Tensors to hold input and outputs.
    Tensor x = Tensor.arange(0, 2000, 1, dtype, device).mul(2 * Math.PI / 1999).sub(Math.PI);
    Tensor y = x.sin();

    // Create random Tensors for weights: y = a + b x + c x^2 + d x^3
    Tensor a = Tensor.randn(Shape.scalar(), device).requiresGrad(true);
    Tensor b = Tensor.randn(Shape.scalar(), device).requiresGrad(true);
    Tensor c = Tensor.randn(Shape.scalar(), device).requiresGrad(true);
    Tensor d = Tensor.randn(Shape.scalar(), device).requiresGrad(true);

    double learningRate = 1e-6;
    for (int t = 0; t < 300; t++) {
      // Forward pass: compute predicted y using operations on Tensors.
      Tensor yPred = a.add(b.mul(x)).add(c.mul(x.pow(2))).add(d.mul(x.pow(3)));

      // Compute and print loss using operations on Tensors.
      Tensor loss = yPred.sub(y).pow(2).sum();
      if (t % 100 == 99) {
        System.out.println(t + " " + loss.item()); // costs time: HostSyncInLoop
      }

      // Use autograd to compute the backward pass.
      loss.backward();

      // Manually update weights using gradient descent.
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        a.subi(a.grad().mul(learningRate));
        b.subi(b.grad().mul(learningRate));
        c.subi(c.grad().mul(learningRate));
        d.subi(d.grad().mul(learningRate));

        // Manually zero the gradients after updating weights
        a.setGrad(null);
        b.setGrad(null);
        c.setGrad(null);
        d.setGrad(null);
      }
    }
    System.out.printf("Result: y = %s + %s x + %s x^2 + %s x^3%n", a.item(), b.item(), c.item(), d.item());
  }
}
