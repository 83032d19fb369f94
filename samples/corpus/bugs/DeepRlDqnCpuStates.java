package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * DeepRL-Chinese's {@code 04_dqn.py}: a {@code DQN} agent object holding the Q and target
 * networks ({@code get_action}, {@code compute_loss}), a list-based replay buffer, and a {@code
 * train(args, env, agent)} loop; {@code main} moves {@code agent.Q} and {@code agent.target_Q} to
 * {@code args.device}.
 *
 * <p>Source: https://github.com/DeepRLChinese/DeepRL-Chinese/issues/4
 *
 * <p>Bug: {@code train} passes CPU tensors to the agent's methods, {@code
 * agent.get_action(torch.from_numpy(state))} and {@code agent.compute_loss(bs, ba, br, bd, bns)}
 * with {@code bs = torch.tensor(bs, dtype=torch.float32)} etc., while the networks are on the GPU.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class DeepRlDqnCpuStates {
  private DeepRlDqnCpuStates() {}

  static final class QNet extends Model {
    final Linear fc1 = new Linear(4, 16);
    final Linear fc2 = new Linear(16, 8);
    final Linear fc3 = new Linear(8, 2);

    Tensor forward(Tensor state) {
      return fc3.forward(fc2.forward(fc1.forward(state).relu()).relu());
    }
  }

  static final class Dqn {
    final double discount;
    final QNet q = new QNet();
    final QNet targetQ = new QNet();

    Dqn(double discount) {
      this.discount = discount;
      targetQ.loadStateDict(q.stateDict(), true);
    }

    Tensor getAction(Tensor state) {
      return q.forward(state).argmax();
    }

    Tensor computeLoss(Tensor sBatch, Tensor aBatch, Tensor rBatch, Tensor dBatch, Tensor nextSBatch) {
      Tensor qvals = q.forward(sBatch).gather(1, aBatch.unsqueeze(1)).squeeze();
      Tensor nextQvals = targetQ.forward(nextSBatch).detach().max(1).values();
      return new MseLoss().forward(rBatch.add(nextQvals.mul(discount).mul(dBatch.rsub(1))), qvals);
    }
  }

  static void softUpdate(QNet target, QNet source, double tau) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      List<Parameter> t = target.parameters();
      List<Parameter> s = source.parameters();
      for (int i = 0; i < t.size(); i++) {
        t.get(i).copyFrom(t.get(i).mul(1.0 - tau).add(s.get(i).mul(tau)));
      }
    }
  }

  /** The replay buffer of lists (numpy states, int actions, float rewards and dones). */
  static final class ReplayBuffer {
    final List<float[]> state = new ArrayList<>();
    final List<float[]> nextState = new ArrayList<>();
    final List<float[]> actionRewardDone = new ArrayList<>();

    void push(float[] s, long a, float r, boolean d, float[] ns) {
      state.add(s);
      actionRewardDone.add(new float[] {a, r, d ? 1f : 0f});
      nextState.add(ns);
    }
  }

  static void train(Dqn agent, int maxSteps, int warmupSteps, int n) {
    ReplayBuffer buffer = new ReplayBuffer();
    Adam optimizer = new Adam(agent.q.parameters(), 1e-3);
    double epsilon = 1;
    Random rng = new Random(0);
    float[] state = {rng.nextFloat(), rng.nextFloat(), rng.nextFloat(), rng.nextFloat()};   // env.reset()
    for (int i = 0; i < maxSteps; i++) {
      long action;
      if (rng.nextDouble() < epsilon || i < warmupSteps) {
        action = rng.nextInt(2);
      } else {
        action = agent.getAction(Tensor.of(state)).itemAsLong(); // bug: across-methods
      }
      float[] nextState = {rng.nextFloat(), rng.nextFloat(), rng.nextFloat(), rng.nextFloat()};   // env.step(action)
      boolean done = (i + 1) % 10 == 0;
      buffer.push(state, action, 1f, done, nextState);
      state = nextState;
      if (done) {
        epsilon = Math.max(epsilon - 0.9 / 1000, 0.1);
      }
      if (i > warmupSteps) {
        float[] bs = new float[n * 4];
        float[] bns = new float[n * 4];
        long[] ba = new long[n];
        float[] br = new float[n];
        float[] bd = new float[n];
        for (int k = 0; k < n; k++) {
          int j = rng.nextInt(buffer.state.size());
          System.arraycopy(buffer.state.get(j), 0, bs, 4 * k, 4);
          System.arraycopy(buffer.nextState.get(j), 0, bns, 4 * k, 4);
          ba[k] = (long) buffer.actionRewardDone.get(j)[0];
          br[k] = buffer.actionRewardDone.get(j)[1];
          bd[k] = buffer.actionRewardDone.get(j)[2];
        }
        Tensor loss = agent.computeLoss(Tensor.of(bs, n, 4), Tensor.of(ba), Tensor.of(br), Tensor.of(bd), Tensor.of(bns, n, 4)); // bug: across-methods
        loss.backward();
        optimizer.step();
        optimizer.zeroGrad();
        softUpdate(agent.targetQ, agent.q, 0.01);
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Dqn agent = new Dqn(0.99);
    agent.q.toDevice(device);
    agent.targetQ.toDevice(device);
    train(agent, 40, 16, 8);
  }
}
