package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;

/**
 * PyTorch tutorials, "PyTorch: Tensors": a third-order polynomial fitted to {@code sin(x)} on
 * {@code [-pi, pi]} with the forward pass, the loss and the backward pass written by hand on
 * tensors of one device.
 *
 * <p>Source: https://github.com/pytorch/tutorials/blob/088bc52a76551211d2499b1cca69a677eba59236/beginner_source/examples_tensor/polynomial_tensor.py
 *
 * <p>Ported: as written, on the device given (the tutorial's "uncomment this to run on GPU" line);
 * {@code torch.linspace} is written as an {@code arange} of the same 2000 points; the loop runs 300
 * steps instead of 2000. The per-step {@code loss.item()} is the tutorial's.
 *
 * <p>Outcome: completes
 */
public final class TutorialsPolynomialTensor {
  private TutorialsPolynomialTensor() {}

  public static void run(Device device) {
    DType dtype = DType.FLOAT32;
    // Create random input and output data
    Tensor x = Tensor.arange(0, 2000, 1, dtype, device).mul(2 * Math.PI / 1999).sub(Math.PI);
    Tensor y = x.sin();

    // Randomly initialize weights
    Tensor a = Tensor.randn(Shape.scalar(), device);
    Tensor b = Tensor.randn(Shape.scalar(), device);
    Tensor c = Tensor.randn(Shape.scalar(), device);
    Tensor d = Tensor.randn(Shape.scalar(), device);

    double learningRate = 1e-6;
    for (int t = 0; t < 300; t++) {
      // Forward pass: compute predicted y
      Tensor yPred = a.add(b.mul(x)).add(c.mul(x.pow(2))).add(d.mul(x.pow(3)));

      // Compute and print loss
      double loss = yPred.sub(y).pow(2).sum().item(); // costs time: HostSyncInLoop
      if (t % 100 == 99) {
        System.out.println(t + " " + loss);
      }

      // Backprop to compute gradients of a, b, c, d with respect to loss
      Tensor gradYPred = y.sub(yPred).mul(-2.0);
      Tensor gradA = gradYPred.sum();
      Tensor gradB = gradYPred.matmul(x).sum();
      Tensor gradC = gradYPred.matmul(x.pow(2)).sum();
      Tensor gradD = gradYPred.matmul(x.pow(3)).sum();

      // Update weights using gradient descent
      a.subi(gradA.mul(learningRate));
      b.subi(gradB.mul(learningRate));
      c.subi(gradC.mul(learningRate));
      d.subi(gradD.mul(learningRate));
    }
    System.out.printf("Result: y = %s + %s x + %s x^2 + %s x^3%n", a.item(), b.item(), c.item(), d.item());
  }
}
