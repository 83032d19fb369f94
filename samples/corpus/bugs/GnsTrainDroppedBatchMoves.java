package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * GNS (graph network-based simulator of granular flows) {@code gns/train.py}: the training loop
 * takes batches of particle position sequences from the data loader, adds random-walk noise
 * ({@code noise_utils}), asks the {@code LearnedSimulator} for predicted and target normalised
 * accelerations, masks out kinematic particles and steps Adam with a decaying learning rate.
 *
 * <p>Source: https://github.com/geoelements/gns/commit/dd29a194fa27b94076af6343f473939bb658a38d
 * (":bug: Moving data to device")
 *
 * <p>Bug: the loop "moves" the batch with {@code position.to(device)},
 * {@code particle_type.to(device)}, {@code n_particles_per_example.to(device)} and
 * {@code labels.to(device)}, discarding every result, so the CPU tensors reach
 * {@code simulator.predict_accelerations}, where {@code position_sequence + position_sequence_noise}
 * meets the noise that was moved to the GPU. The fix passes {@code labels.to(device)},
 * {@code sampled_noise.to(device)}, {@code position.to(device)}, ... as the call's arguments.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class GnsTrainDroppedBatchMoves {
  private GnsTrainDroppedBatchMoves() {}

  static final int INPUT_SEQUENCE_LENGTH = 6;
  static final int KINEMATIC_PARTICLE_ID = 3;

  /** {@code learned_simulator.time_diff}. */
  static Tensor timeDiff(Tensor positionSequence) {
    long t = positionSequence.size(1);
    return positionSequence.slice(1, 1, t).sub(positionSequence.slice(1, 0, t - 1));
  }

  /** Cumulative sum along dim 1 of {@code [n, t, d]}, as a product with a triangular matrix. */
  static Tensor cumsum1(Tensor x) {
    long t = x.size(1);
    Tensor tri = Tensor.arange(t, x.device()).unsqueeze(1).ge(Tensor.arange(t, x.device()).unsqueeze(0)).to(x.dtype());
    return tri.matmul(x);
  }

  /** {@code noise_utils}. */
  static final class NoiseUtils {
    static Tensor getRandomWalkNoiseForPositionSequence(Tensor positionSequence, double noiseStdLastStep) {
      Tensor velocitySequence = timeDiff(positionSequence);
      long numVelocities = velocitySequence.size(1);
      Tensor velocitySequenceNoise = Tensor.randn(velocitySequence.shape()).mul(noiseStdLastStep / Math.sqrt(numVelocities));
      // Apply the random walk.
      velocitySequenceNoise = cumsum1(velocitySequenceNoise);
      // Integrate the noise in the velocity to the positions.
      return Tensor.cat(List.of(Tensor.zerosLike(velocitySequenceNoise.slice(1, 0, 1)), cumsum1(velocitySequenceNoise)), 1);
    }
  }

  /**
   * {@code LearnedSimulator}: the encode-process-decode graph network is reduced to an MLP over
   * each particle's normalised recent velocities and its particle-type embedding.
   */
  static final class LearnedSimulator extends Model {
    final Embedding particleTypeEmbedding = new Embedding(9, 16);
    final Sequential encodeProcessDecode = new Sequential(new Linear(5 * 2 + 16, 64), new ReLU(), new Linear(64, 64), new ReLU(), new Linear(64, 2));
    @Buffer Tensor accMean = Tensor.zeros(2, Device.cpu());
    @Buffer Tensor accStd = Tensor.full(Shape.of(2), 1e-3, Device.cpu());
    @Buffer Tensor velMean = Tensor.zeros(2, Device.cpu());
    @Buffer Tensor velStd = Tensor.full(Shape.of(2), 1e-2, Device.cpu());

    Tensor encoderPreprocessor(Tensor positionSequence, Tensor particleTypes) {
      Tensor velocitySequence = timeDiff(positionSequence);
      Tensor normalizedVelocitySequence = velocitySequence.sub(velMean).div(velStd);
      Tensor flatVelocitySequence = normalizedVelocitySequence.reshape(normalizedVelocitySequence.size(0), -1);
      return Tensor.cat(List.of(flatVelocitySequence, particleTypeEmbedding.forward(particleTypes)), 1);
    }

    Tensor inverseDecoderPostprocessor(Tensor nextPosition, Tensor positionSequence) {
      long t = positionSequence.size(1);
      Tensor previousPosition = positionSequence.select(1, t - 1);
      Tensor previousVelocity = previousPosition.sub(positionSequence.select(1, t - 2));
      Tensor nextVelocity = nextPosition.sub(previousPosition);
      Tensor acceleration = nextVelocity.sub(previousVelocity);
      return acceleration.sub(accMean).div(accStd);
    }

    Tensor[] predictAccelerations(Tensor nextPositions, Tensor positionSequenceNoise, Tensor positionSequence,
        Tensor nparticlesPerExample, Tensor particleTypes) {
      // Add noise to the input position sequence.
      Tensor noisyPositionSequence = positionSequence.add(positionSequenceNoise); // same bug
      Tensor nodeFeatures = encoderPreprocessor(noisyPositionSequence, particleTypes);
      Tensor predictedNormalizedAcceleration = encodeProcessDecode.forward(nodeFeatures);
      // Calculate the target acceleration, using an adjusted next position.
      Tensor nextPositionAdjusted = nextPositions.add(positionSequenceNoise.select(1, positionSequenceNoise.size(1) - 1));
      Tensor targetNormalizedAcceleration = inverseDecoderPostprocessor(nextPositionAdjusted, noisyPositionSequence);
      return new Tensor[] {predictedNormalizedAcceleration, targetNormalizedAcceleration};
    }
  }

  /** One sample of {@code data_loader.get_data_loader_by_samples}: host tensors. */
  record Sample(Tensor position, Tensor particleType, Tensor nParticlesPerExample, Tensor labels) {}

  static List<Sample> getDataLoaderBySamples(int n) {
    List<Sample> ds = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Tensor trajectory = NoiseUtils.getRandomWalkNoiseForPositionSequence(Tensor.rand(Shape.of(20, INPUT_SEQUENCE_LENGTH + 1, 2)), 0.01)
          .add(Tensor.rand(Shape.of(20, 1, 2)));
      Tensor particleType = Tensor.where(Tensor.rand(Shape.of(20)).lt(0.1), Tensor.full(Shape.of(20), KINEMATIC_PARTICLE_ID, DType.INT64),
          Tensor.full(Shape.of(20), 5, DType.INT64));
      ds.add(new Sample(trajectory.slice(1, 0, INPUT_SEQUENCE_LENGTH), particleType, Tensor.of(new long[] {20}),
          trajectory.select(1, INPUT_SEQUENCE_LENGTH)));
    }
    return ds;
  }

  static void train(LearnedSimulator simulator, Device device) {
    double lrInit = 1e-4;
    double lrDecay = 0.1;
    double lrDecaySteps = 5e6;
    double noiseStd = 6.7e-4;
    int ntrainingSteps = 5;
    Adam optimizer = new Adam(simulator.parameters(), lrInit);
    int step = 0;

    simulator.train();
    simulator.toDevice(device);

    List<Sample> ds = getDataLoaderBySamples(8);
    System.out.println("device = " + device);
    for (Sample s : ds) {
      Tensor position = s.position();
      Tensor particleType = s.particleType();
      Tensor nParticlesPerExample = s.nParticlesPerExample();
      Tensor labels = s.labels();
      position.to(device); // same bug
      particleType.to(device); // same bug
      nParticlesPerExample.to(device); // same bug
      labels.to(device); // same bug

      // Sample the noise to add to the inputs to the model during training.
      Tensor sampledNoise = NoiseUtils.getRandomWalkNoiseForPositionSequence(position, noiseStd).to(device);
      Tensor nonKinematicMask = particleType.ne(KINEMATIC_PARTICLE_ID).clone().detach().to(device);
      sampledNoise = sampledNoise.mul(nonKinematicMask.to(DType.FLOAT32).view(-1, 1, 1));

      // Get the predictions and target accelerations.
      Tensor[] acc = simulator.predictAccelerations(
          labels, // bug: in-method
          sampledNoise,
          position, // bug: in-method
          nParticlesPerExample, // bug: in-method
          particleType); // bug: in-method

      // Calculate the loss and mask out loss on kinematic particles
      Tensor loss = acc[0].sub(acc[1]).pow(2);
      loss = loss.sum(-1);
      Tensor numNonKinematic = nonKinematicMask.to(DType.FLOAT32).sum();
      loss = Tensor.where(nonKinematicMask, loss, Tensor.zerosLike(loss));
      loss = loss.sum().div(numNonKinematic);

      // Computes the gradient of loss
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();

      // Update learning rate
      double lrNew = lrInit * Math.pow(lrDecay, step / lrDecaySteps);
      optimizer.setLearningRate(lrNew);

      System.out.println("Training step: " + step + "/" + ntrainingSteps + ". Loss: " + loss + "."); // costs time: HostSyncInLoop
      if (step >= ntrainingSteps) {
        break;
      }
      step++;
    }
  }

  public static void run(Device device) {
    train(new LearnedSimulator(), device);
  }
}
