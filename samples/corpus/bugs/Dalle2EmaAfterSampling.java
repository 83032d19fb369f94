package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * DALLE2-pytorch's DecoderTrainer: trains a cascade of unets, keeps an EMA copy of each, and samples
 * with the EMA unets swapped into the decoder; sampling keeps one unet on the GPU at a time.
 *
 * <p>Source: https://github.com/lucidrains/DALLE2-pytorch/issues/87
 *
 * <p>Bug: {@code Decoder.sample} runs each unet inside {@code one_unet_in_gpu}, which moves the
 * unets to the CPU afterwards; the swapped-in EMA unets stayed there, and the next
 * {@code EMA.update} computed {@code old * beta + (1 - beta) * new} with {@code old} on the CPU and
 * {@code new} on cuda:0.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class Dalle2EmaAfterSampling {
  private Dalle2EmaAfterSampling() {}

  static final class Unet extends Model {
    final Linear inner = new Linear(6, 6);

    Tensor forward(Tensor x) {
      return inner.forward(x).tanh();
    }
  }

  static final class Decoder extends Model {
    List<Unet> unets = List.of(new Unet(), new Unet());

    Tensor forward(Tensor image, int unetNumber) {
      Tensor noise = Tensor.randnLike(image);
      return new MseLoss().forward(unets.get(unetNumber - 1).forward(image.add(noise)), noise);
    }

    /** self.cuda(); self.unets.cpu(); unet.cuda(); yield; unet.cpu() */
    void oneUnetInGpu(Unet unet, Runnable body) {
      toDevice(Device.parse("cuda"));
      unets.forEach(u -> u.toDevice(Device.cpu()));
      unet.toDevice(Device.parse("cuda"));
      try {
        body.run();
      } finally {
        unet.toDevice(Device.cpu());
      }
    }

    Tensor sample(int batch) {
      Tensor[] img = {null};
      boolean isCuda = device().isCuda();
      for (Unet unet : unets) {
        Runnable step = () -> {
          Tensor x = img[0] == null ? Tensor.randn(batch, 6, unet.device()) : img[0].to(unet.device());
          img[0] = unet.forward(x);
        };
        if (isCuda) oneUnetInGpu(unet, step); else step.run();
      }
      return img[0];
    }
  }

  static final class Ema extends Model {
    final double beta = 0.99;
    final int updateAfterStep = 2;
    final int updateEvery = 1;
    final Unet onlineModel;
    final Unet emaModel = new Unet();
    @Buffer Tensor initted = Tensor.zeros(1, Device.cpu());
    @Buffer Tensor step = Tensor.zeros(1, Device.cpu());

    Ema(Unet model) {
      onlineModel = model;
      emaModel.loadStateDict(model.stateDict(), true);   // copy.deepcopy(model)
    }

    void update() {
      step.addi(1);
      double s = step.item(); // costs time: HostSyncInLoop
      if (s <= updateAfterStep || s % updateEvery != 0) return;
      if (initted.item() == 0) { // costs time: HostSyncInLoop
        emaModel.loadStateDict(onlineModel.stateDict(), true);
        initted.fill(1);
      }
      updateMovingAverage(emaModel, onlineModel);
    }

    static Tensor calculateEma(double beta, Tensor old, Tensor up) {
      return old.mul(beta).add(up.mul(1 - beta));             // bug: training-state
    }

    void updateMovingAverage(Unet maModel, Unet currentModel) {
      List<Parameter> current = currentModel.parameters();
      List<Parameter> ma = maModel.parameters();
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (int i = 0; i < ma.size(); i++) {
          ma.get(i).assign(calculateEma(beta, ma.get(i).detach(), current.get(i).detach()));
        }
      }
    }
  }

  static final class DecoderTrainer extends Model {
    final Decoder decoder;
    final List<Ema> emaUnets = new ArrayList<>();
    final List<Adam> optimizers = new ArrayList<>();

    DecoderTrainer(Decoder decoder) {
      this.decoder = decoder;
      for (Unet unet : decoder.unets) {
        optimizers.add(new Adam(unet.parameters(), 3e-4));
        emaUnets.add(new Ema(unet));
      }
    }

    void update(int unetNumber) {
      optimizers.get(unetNumber - 1).step();
      optimizers.get(unetNumber - 1).zeroGrad();
      emaUnets.get(unetNumber - 1).update();
    }

    Tensor sample(int batch) {
      List<Unet> trainableUnets = decoder.unets;
      decoder.unets = List.of(emaUnets.get(0).emaModel, emaUnets.get(1).emaModel);   // swap in the EMA unets
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        return decoder.sample(batch);
      } finally {
        decoder.unets = trainableUnets;         // restore original training unets
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    DecoderTrainer trainer = new DecoderTrainer(new Decoder());
    trainer.toDevice(device);
    for (int i = 0; i < 8; i++) {
      for (int unetNumber = 1; unetNumber <= 2; unetNumber++) {
        Tensor images = Tensor.randn(4, 6, device);
        trainer.decoder.forward(images, unetNumber).backward();
        trainer.update(unetNumber);
      }
      if (i == 4) {
        trainer.sample(2);
      }
    }
  }
}
