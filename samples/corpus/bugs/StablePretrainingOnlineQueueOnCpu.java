package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * stable-pretraining's NNCLR: {@code nnclr_forward} finds (or creates, on the first training step)
 * the {@code OnlineQueue} callback of the key {@code nnclr_support_set}, takes the support set of
 * past projections from the class-level registry {@code OnlineQueue._shared_queues}, and uses each
 * view's nearest neighbour in it as the positive of an NT-Xent loss; after every batch the
 * callback appends the batch's projections to its shared {@code OrderedQueue}.
 *
 * <p>Source: https://github.com/galilai-group/stable-pretraining/issues/379 (fixed by commit
 * 8c0a9cb, "[BugFix] #378 #379")
 *
 * <p>Bug: {@code OnlineQueue.setup} creates the shared {@code OrderedQueue(max_length, dim, dtype)}
 * with its buffers on the CPU and stores it in the class-level dict (and in
 * {@code pl_module.callbacks_modules}) after Lightning has already moved the module, so nothing
 * moves it; NNCLR's {@code torch.mm(query_norm, support_norm.t())} then mixes cuda:0 and cpu. The
 * fix moves the new queue to {@code pl_module.device} when creating it.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class StablePretrainingOnlineQueueOnCpu {
  private StablePretrainingOnlineQueueOnCpu() {}

  /** {@code stable_pretraining.callbacks.queues.OrderedQueue}, with a fixed element shape. */
  static final class OrderedQueue extends Model {
    final int maxLength;
    @Buffer Tensor pointer = Tensor.zeros(Shape.scalar(), DType.INT64);
    @Buffer Tensor filled = Tensor.zeros(Shape.scalar(), DType.BOOL);
    @Buffer Tensor globalCounter = Tensor.zeros(Shape.scalar(), DType.INT64);
    @Buffer Tensor out;
    @Buffer Tensor orderIndices;

    OrderedQueue(int maxLength, int shape) {
      this.maxLength = maxLength;
      out = Tensor.zeros(Shape.of(maxLength, shape));
      orderIndices = Tensor.zeros(Shape.of(maxLength), DType.INT64);
    }

    Tensor append(Tensor item) {
      long batchSize = item.size(0);
      long p = pointer.itemAsLong(); // costs time: HostSyncInLoop
      long gc = globalCounter.itemAsLong(); // costs time: HostSyncInLoop
      if (batchSize >= maxLength) {
        // Keep only the last max_length items from the batch
        out.copyFrom(item.slice(0, batchSize - maxLength, batchSize));
        orderIndices.copyFrom(Tensor.arange(gc + batchSize - maxLength, gc + batchSize, orderIndices.device()));
        pointer.fill(0);
        filled.fill(1);
        globalCounter.addi(batchSize);
      } else if (p + batchSize < maxLength) {
        // Simple case: no wraparound
        out.slice(0, p, p + batchSize).copyFrom(item);
        orderIndices.slice(0, p, p + batchSize).copyFrom(Tensor.arange(gc, gc + batchSize, orderIndices.device()));
        pointer.addi(batchSize);
        globalCounter.addi(batchSize);
      } else {
        // Wraparound case
        long remaining = maxLength - p;
        out.slice(0, maxLength - remaining, maxLength).copyFrom(item.slice(0, 0, remaining));
        out.slice(0, 0, batchSize - remaining).copyFrom(item.slice(0, remaining, batchSize));
        orderIndices.slice(0, maxLength - remaining, maxLength).copyFrom(Tensor.arange(gc, gc + remaining, orderIndices.device()));
        orderIndices.slice(0, 0, batchSize - remaining).copyFrom(Tensor.arange(gc + remaining, gc + batchSize, orderIndices.device()));
        pointer.fill(batchSize - remaining);
        filled.fill(1);
        globalCounter.addi(batchSize);
      }
      return get();
    }

    /** Contents in insertion order ({@code argsort(order_indices)} of a ring buffer: start at the pointer). */
    Tensor get() {
      long p = pointer.itemAsLong(); // costs time: HostSyncInLoop
      if (filled.itemAsBoolean()) { // costs time: HostSyncInLoop
        Tensor idx = Tensor.arange(maxLength, out.device()).add(p);
        Tensor sortedIdx = Tensor.where(idx.ge(maxLength), idx.sub(maxLength), idx);
        return out.indexSelect(0, sortedIdx);
      }
      return out.slice(0, 0, p);
    }
  }

  /** {@code stable_pretraining.callbacks.queue.OnlineQueue}: a Lightning callback, not a module. */
  static final class OnlineQueue {
    // Class-level registry to track shared queues by key
    static final Map<String, OrderedQueue> SHARED_QUEUES = new LinkedHashMap<>();
    static final Map<String, Integer> QUEUE_MAX_LENGTH = new LinkedHashMap<>();

    final String key;
    final int requestedLength;
    final int dim;

    OnlineQueue(String key, int queueLength, int dim) {
      this.key = key;
      this.requestedLength = queueLength;
      this.dim = dim;
    }

    void setup(Trainer trainer, NnclrModule plModule, String stage) {
      QUEUE_MAX_LENGTH.merge(key, requestedLength, Math::max);
      int maxLength = QUEUE_MAX_LENGTH.get(key);
      if (!SHARED_QUEUES.containsKey(key)) {
        // Create new shared queue with maximum requested size
        SHARED_QUEUES.put(key, new OrderedQueue(maxLength, dim)); // bug: held-outside-models
        // Register in callbacks_modules for consistency
        plModule.callbacksModules.put("ordered_queue_" + key, SHARED_QUEUES.get(key));
        System.out.println("  created shared queue for '" + key + "' with size " + maxLength);
      }
    }

    void onTrainBatchEnd(Trainer trainer, NnclrModule plModule, Map<String, Tensor> outputs) {
      Tensor data = outputs.get(key);
      if (data == null) {
        return;
      }
      SHARED_QUEUES.get(key).append(data.detach());
    }

    /** {@code find_or_create_queue_callback}. */
    static OnlineQueue findOrCreate(Trainer trainer, String key, int queueLength, int dim) {
      for (OnlineQueue cb : trainer.callbacks) {
        if (cb.key.equals(key) && cb.dim == dim) {
          return cb;
        }
      }
      OnlineQueue newQueue = new OnlineQueue(key, queueLength, dim);
      trainer.callbacks.add(newQueue);
      // Run setup if trainer is already set up
      newQueue.setup(trainer, trainer.lightningModule, "fit");
      return newQueue;
    }
  }

  static Tensor normalize(Tensor x) {
    return x.div(x.square().sum(1, true).sqrt().clampMin(1e-12));
  }

  /** {@code _find_nearest_neighbors}. */
  static Tensor findNearestNeighbors(Tensor query, Tensor supportSet) {
    Tensor queryNorm = normalize(query);
    Tensor supportNorm = normalize(supportSet);
    Tensor similarity = queryNorm.matmul(supportNorm.t()); // same bug
    Tensor indices = similarity.max(1).indices();
    return supportSet.indexSelect(0, indices);
  }

  /** {@code NTXEntLoss}: the other view is the positive, every other sample a negative. */
  static Tensor ntXentLoss(Tensor zI, Tensor zJ, double temperature) {
    long n = zI.size(0);
    Tensor z = normalize(Tensor.cat(List.of(zI, zJ), 0));
    Tensor eye = Tensor.eye(2 * n, z.device()).gt(0);
    Tensor sim = z.matmul(z.t()).div(temperature).maskedFill(eye, -1e9);
    Tensor targets = Tensor.cat(List.of(Tensor.arange(n, 2 * n, z.device()), Tensor.arange(0, n, z.device())), 0);
    return new CrossEntropyLoss().forward(sim, targets);
  }

  /** {@code spt.Module(forward=nnclr_forward, backbone=..., projector=..., predictor=...)}. */
  static final class NnclrModule extends Model {
    final Sequential backbone = new Sequential(new Linear(48, 32), new ReLU());
    final Linear projector = new Linear(32, 16);
    final Linear predictor = new Linear(16, 16);
    final Map<String, Model> callbacksModules = new LinkedHashMap<>();
    final int supportSetSize = 64;
    final int projectionDim = 16;
    Trainer trainer;
    OnlineQueue nnclrQueueCallback;

    Map<String, Tensor> nnclrForward(List<Tensor> views) {
      Map<String, Tensor> out = new LinkedHashMap<>();
      List<Tensor> embeddings = new ArrayList<>();
      for (Tensor view : views) {
        embeddings.add(backbone.forward(view));
      }
      out.put("embedding", Tensor.cat(embeddings, 0));
      if (isTraining()) {
        if (nnclrQueueCallback == null) {
          nnclrQueueCallback = OnlineQueue.findOrCreate(trainer, "nnclr_support_set", supportSetSize, projectionDim);
        }
        Tensor projQ = projector.forward(embeddings.get(0));
        Tensor projK = projector.forward(embeddings.get(1));

        Tensor supportSet = OnlineQueue.SHARED_QUEUES.get(nnclrQueueCallback.key).get();
        if (supportSet.size(0) > 0) {
          Tensor predQ = predictor.forward(projQ);
          Tensor predK = predictor.forward(projK);
          Tensor nnK = findNearestNeighbors(projK, supportSet).detach();
          Tensor nnQ = findNearestNeighbors(projQ, supportSet).detach();
          Tensor lossA = ntXentLoss(predQ, nnK, 0.5);
          Tensor lossB = ntXentLoss(predK, nnQ, 0.5);
          out.put("loss", lossA.add(lossB).div(2.0));
        } else {
          // Fallback to SimCLR style loss if queue is empty
          out.put("loss", ntXentLoss(projQ, projK, 0.5));
        }
        // The key here must match the `key` argument of the `OnlineQueue` callback
        out.put("nnclr_support_set", Tensor.cat(List.of(projQ, projK), 0));
      }
      return out;
    }
  }

  /** The part of Lightning's {@code Trainer.fit} that matters: move the module, then train. */
  static final class Trainer {
    final List<OnlineQueue> callbacks = new ArrayList<>();
    final Device device;
    NnclrModule lightningModule;

    Trainer(Device device) {
      this.device = device;
    }

    void fit(NnclrModule module, DataLoader loader) {
      lightningModule = module;
      module.trainer = this;
      module.toDevice(device);
      Sgd optimizer = new Sgd(module.parameters(), 0.05).momentum(0.9);
      module.train();
      for (Batch batch : loader) {
        // the two augmented views of the batch, moved to the device by Lightning
        List<Tensor> views = List.of(batch.tensor(0).to(device), batch.tensor(1).to(device));
        Map<String, Tensor> outputs = module.nnclrForward(views);
        optimizer.zeroGrad();
        outputs.get("loss").backward();
        optimizer.step();
        for (OnlineQueue cb : callbacks) {
          cb.onTrainBatchEnd(this, module, outputs);
        }
      }
    }
  }

  public static void run(Device device) {
    OnlineQueue.SHARED_QUEUES.clear();
    OnlineQueue.QUEUE_MAX_LENGTH.clear();
    Trainer trainer = new Trainer(device);
    // two augmented views (MultiViewTransform) of 96 toy images
    Tensor images = Tensor.randn(Shape.of(96, 48));
    TensorDataset views = new TensorDataset(images.add(Tensor.randn(Shape.of(96, 48)).mul(0.1)),
        images.add(Tensor.randn(Shape.of(96, 48)).mul(0.1)));
    trainer.fit(new NnclrModule(), DataLoader.builder(views).batchSize(8).shuffle(0).build());
    System.out.println("queue filled: " + OnlineQueue.SHARED_QUEUES.get("nnclr_support_set").filled.itemAsBoolean());
  }
}
