package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * gflownet's hyper-grid environment: a state is a vector of {@code n_dim} coordinates in {@code
 * [0, length)}; {@code Grid.states2policy} one-hot encodes a batch of states for the policy model
 * ({@code length * n_dim} columns), {@code states2proxy} maps them to cell coordinates for the
 * reward; a GFlowNet samples trajectories with the policy and trains it with trajectory balance.
 *
 * <p>Source: https://github.com/alexhernandezgarcia/gflownet/pull/449 (fixes issue #307; commit
 * ac84558e)
 *
 * <p>Bug: {@code states2policy} converts the states to a tensor on the environment's device ({@code
 * tlong(states, device=self.device)}) but builds the column offsets and row indices with {@code
 * torch.arange(self.n_dim)} and {@code torch.arange(n_states)}, on the CPU: on a CUDA environment
 * {@code states + torch.arange(self.n_dim) * self.length} mixes devices. The fix creates both
 * aranges on {@code states.device}.
 *
 * <p>Ported: the index assignment {@code states_policy[rows, cols.flatten()] = 1.0} is written as a
 * one-hot of the flat index {@code rows * width + cols}; the policy is a small MLP, sampling uses
 * the Gumbel-max trick, and the proxy is a corners reward.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class GflownetGridStates2PolicyArange {
  private GflownetGridStates2PolicyArange() {}

  static final class Grid {
    final int nDim;
    final int length;
    final Device device;
    final double[] cells;
    final int[] source;
    final List<int[]> actionSpace = new ArrayList<>();

    Grid(int nDim, int length, double cellMin, double cellMax, Device device) {
      this.nDim = nDim;
      this.length = length;
      this.device = device;
      this.cells = new double[length];
      for (int i = 0; i < length; i++) {
        cells[i] = cellMin + (cellMax - cellMin) * i / (length - 1);
      }
      this.source = new int[nDim];
      for (int d = 0; d < nDim; d++) {
        int[] action = new int[nDim];
        action[d] = 1;
        actionSpace.add(action);
      }
      actionSpace.add(new int[nDim]); // eos
    }

    int policyOutputDim() {
      return actionSpace.size();
    }

    boolean[] maskInvalidActionsForward(int[] state, boolean done) {
      boolean[] mask = new boolean[policyOutputDim()];
      if (done) {
        Arrays.fill(mask, true);
        return mask;
      }
      for (int idx = 0; idx < actionSpace.size() - 1; idx++) {
        int[] action = actionSpace.get(idx);
        for (int d = 0; d < nDim; d++) {
          if (state[d] + action[d] >= length) {
            mask[idx] = true;
          }
        }
      }
      return mask;
    }

    static Tensor tlong(List<int[]> states, Device device) {
      int n = states.size();
      int dims = states.get(0).length;
      long[] flat = new long[n * dims];
      for (int i = 0; i < n; i++) {
        for (int d = 0; d < dims; d++) {
          flat[i * dims + d] = states.get(i)[d];
        }
      }
      return Tensor.of(flat, Shape.of(n, dims), device);
    }

    Tensor states2proxy(List<int[]> states) {
      long n = states.size();
      Tensor onehot = states2policy(states).reshape(n, nDim, length);
      Tensor cellValues = Tensor.of(cells).unsqueeze(0).to(onehot.device()); // costs time: CreateThenMove
      return onehot.mul(cellValues).sum(2);
    }

    Tensor states2policy(List<int[]> states) {
      Tensor statesT = tlong(states, device);
      long nStates = statesT.size(0);
      long width = (long) length * nDim;
      Tensor cols = statesT.add(Tensor.arange(nDim).mul(length)); // bug: in-method
      Tensor rows = Tensor.arange(nStates).unsqueeze(1).expand(nStates, nDim).flatten(); // bug: in-method
      Tensor flatIndex = rows.mul(width).add(cols.flatten()); // same bug
      Tensor statesPolicy = Tensor.oneHot(flatIndex, (int) (nStates * width)).sum(0).view(nStates, width);
      return statesPolicy.to(DType.FLOAT32);
    }
  }

  static final class Policy extends Model {
    final Linear fc1;
    final Linear fc2;
    final Linear out;

    Policy(int inputDim, int hidden, int outputDim) {
      this.fc1 = new Linear(inputDim, hidden);
      this.fc2 = new Linear(hidden, hidden);
      this.out = new Linear(hidden, outputDim);
    }

    Tensor forward(Tensor x) {
      return out.forward(fc2.forward(fc1.forward(x).relu()).relu());
    }
  }

  /** The trajectory-balance GFlowNet agent: a forward policy and a learned log-partition. */
  static final class GflowNetAgent extends Model {
    final Policy forwardPolicy;
    final Parameter logZ = new Parameter(Tensor.zeros(1));

    GflowNetAgent(Grid env) {
      this.forwardPolicy = new Policy(env.length * env.nDim, 32, env.policyOutputDim());
    }
  }

  static Tensor corners(Grid env, Tensor proxyStates) {
    Tensor ax = proxyStates.abs();
    Tensor r1 = ax.gt(0.5).to(DType.FLOAT32).sum(1).eq(env.nDim).to(DType.FLOAT32).mul(0.5);
    Tensor r2 = ax.gt(0.6).logicalAnd(ax.lt(0.8)).to(DType.FLOAT32).sum(1).eq(env.nDim).to(DType.FLOAT32).mul(2.0);
    return r1.add(r2).add(1e-3);
  }

  static Tensor trajectoryBalanceLoss(Grid env, GflowNetAgent agent, int batchSize, Device device) {
    List<int[]> states = new ArrayList<>();
    boolean[] done = new boolean[batchSize];
    for (int i = 0; i < batchSize; i++) {
      states.add(env.source.clone());
    }
    Tensor sumLogPf = Tensor.zeros(Shape.of(batchSize), device);
    int active = batchSize;
    while (active > 0) {
      Tensor logits = agent.forwardPolicy.forward(env.states2policy(states));
      long[] maskFlat = new long[batchSize * env.policyOutputDim()];
      for (int i = 0; i < batchSize; i++) {
        boolean[] m = env.maskInvalidActionsForward(states.get(i), done[i]);
        if (done[i]) {
          m[env.policyOutputDim() - 1] = false;
        }
        for (int a = 0; a < m.length; a++) {
          maskFlat[i * env.policyOutputDim() + a] = m[a] ? 1 : 0;
        }
      }
      Tensor mask = Tensor.of(maskFlat, Shape.of(batchSize, env.policyOutputDim()), device).eq(1);
      Tensor logProbs = logits.maskedFill(mask, Double.NEGATIVE_INFINITY).logSoftmax(1);
      Tensor gumbel = Tensor.randLike(logProbs).clamp(1e-9, 1.0).log().neg().log().neg();
      Tensor actions = logProbs.detach().add(gumbel).argmax(1);
      long[] notDoneFlat = new long[batchSize];
      for (int i = 0; i < batchSize; i++) {
        notDoneFlat[i] = done[i] ? 0 : 1;
      }
      Tensor notDone = Tensor.of(notDoneFlat, Shape.of(batchSize), device).to(DType.FLOAT32);
      sumLogPf = sumLogPf.add(logProbs.gather(1, actions.unsqueeze(1)).squeeze(1).mul(notDone));
      long[] chosen = actions.toLongArray(); // costs time: HostSyncInLoop
      for (int i = 0; i < batchSize; i++) {
        if (done[i]) {
          continue;
        }
        if (chosen[i] == env.policyOutputDim() - 1) {
          done[i] = true;
          active--;
        } else {
          int[] next = states.get(i).clone();
          int[] action = env.actionSpace.get((int) chosen[i]);
          for (int d = 0; d < env.nDim; d++) {
            next[d] += action[d];
          }
          states.set(i, next);
        }
      }
    }
    Tensor logReward = corners(env, env.states2proxy(states)).log();
    return agent.logZ.add(sumLogPf).sub(logReward).square().mean();
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Grid env = new Grid(2, 4, -1.0, 1.0, device);
    GflowNetAgent agent = new GflowNetAgent(env);
    agent.toDevice(device);
    Adam optimizer = new Adam(agent.parameters(), 1e-3);
    for (int it = 0; it < 3; it++) {
      Tensor loss = trajectoryBalanceLoss(env, agent, 4, device);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      System.out.println("logZ " + agent.logZ.item());
    }
  }
}
