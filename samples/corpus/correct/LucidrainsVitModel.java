package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.GELU;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.Sequential;
import java.util.ArrayList;
import java.util.List;

/**
 * lucidrains' vit-pytorch {@code ViT}: patches cut out of the image and embedded (LayerNorm,
 * Linear, LayerNorm), a learned class token prepended, learned position embeddings added, a
 * pre-norm transformer of attention and feed-forward blocks with residuals, and a linear head on
 * the class token (or the mean of the tokens); used as in the README, on a batch of images.
 *
 * <p>Source: https://github.com/lucidrains/vit-pytorch/blob/69d24fe9e3024c0d4b02761123b8583a24ebed1e/vit_pytorch/vit.py
 * (and the README's usage)
 *
 * <p>Ported: FeedForward, Attention, Transformer, ViT (cls and mean pooling, num_classes > 0 and the
 * headless case); {@code Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)')} and the head
 * rearranges as view/permute/reshape, {@code repeat(cls_token, '... d -> b ... d')} as expand
 * (concatenated only when there is a class token, which is what the empty concatenation of the
 * mean pooling amounts to); the README's usage on device with smaller sizes (the README's 256
 * pixels, dim 1024), a forward pass in evaluation mode, and one training step of our own.
 *
 * <p>Outcome: completes
 */
public final class LucidrainsVitModel {
  private LucidrainsVitModel() {}

  static final class FeedForward extends Model {
    final Sequential net;

    FeedForward(int dim, int hiddenDim, double dropout) {
      net = new Sequential(new LayerNorm(dim), new Linear(dim, hiddenDim), new GELU(), new Dropout(dropout),
          new Linear(hiddenDim, dim), new Dropout(dropout));
    }

    Tensor forward(Tensor x) {
      return net.forward(x);
    }
  }

  static final class Attention extends Model {
    final int heads;
    final double scale;
    final LayerNorm norm;
    final Dropout dropout;
    final Linear toQkv;
    final Sequential toOut;

    Attention(int dim, int heads, int dimHead, double dropout) {
      int innerDim = dimHead * heads;
      boolean projectOut = !(heads == 1 && dimHead == dim);
      this.heads = heads;
      this.scale = Math.pow(dimHead, -0.5);
      this.norm = new LayerNorm(dim);
      this.dropout = new Dropout(dropout);
      this.toQkv = new Linear(dim, innerDim * 3, false, Device.cpu());
      this.toOut = projectOut ? new Sequential(new Linear(innerDim, dim), new Dropout(dropout)) : new Sequential();
    }

    /** {@code rearrange(t, 'b n (h d) -> b h n d', h=heads)}. */
    Tensor splitHeads(Tensor t) {
      return t.view(t.size(0), t.size(1), heads, t.size(2) / heads).transpose(1, 2);
    }

    Tensor forward(Tensor x) {
      x = norm.forward(x);
      Tensor qkv = toQkv.forward(x);
      long inner = qkv.size(2) / 3;
      Tensor q = splitHeads(qkv.narrow(2, 0, inner));
      Tensor k = splitHeads(qkv.narrow(2, inner, inner));
      Tensor v = splitHeads(qkv.narrow(2, 2 * inner, inner));
      Tensor dots = q.matmul(k.transpose(-1, -2)).mul(scale);
      Tensor attn = dropout.forward(dots.softmax(-1));
      Tensor out = attn.matmul(v);
      out = out.transpose(1, 2).reshape(out.size(0), out.size(2), out.size(1) * out.size(3)); // 'b h n d -> b n (h d)'
      return toOut.forward(out);
    }
  }

  /** One layer of the transformer: {@code ModuleList([Attention(...), FeedForward(...)])}. */
  static final class Layer extends Model {
    final Attention attn;
    final FeedForward ff;

    Layer(Attention attn, FeedForward ff) {
      this.attn = attn;
      this.ff = ff;
    }
  }

  static final class Transformer extends Model {
    final LayerNorm norm;
    final List<Layer> layers = new ArrayList<>();

    Transformer(int dim, int depth, int heads, int dimHead, int mlpDim, double dropout) {
      norm = new LayerNorm(dim);
      for (int i = 0; i < depth; i++) {
        layers.add(new Layer(new Attention(dim, heads, dimHead, dropout), new FeedForward(dim, mlpDim, dropout)));
      }
    }

    Tensor forward(Tensor x) {
      for (Layer layer : layers) {
        x = layer.attn.forward(x).add(x);
        x = layer.ff.forward(x).add(x);
      }
      return norm.forward(x);
    }
  }

  static final class ViT extends Model {
    final int patchHeight;
    final int patchWidth;
    final Sequential toPatchEmbedding;
    final Parameter clsToken;
    final Parameter posEmbedding;
    final Dropout dropout;
    final Transformer transformer;
    final String pool;
    final Linear mlpHead;

    ViT(int imageSize, int patchSize, int numClasses, int dim, int depth, int heads, int mlpDim, String pool,
        int channels, int dimHead, double dropout, double embDropout) {
      int imageHeight = imageSize, imageWidth = imageSize;
      patchHeight = patchSize;
      patchWidth = patchSize;
      if (imageHeight % patchHeight != 0 || imageWidth % patchWidth != 0) {
        throw new IllegalArgumentException("Image dimensions must be divisible by the patch size.");
      }
      int numPatches = (imageHeight / patchHeight) * (imageWidth / patchWidth);
      int patchDim = channels * patchHeight * patchWidth;
      int numClsTokens = pool.equals("cls") ? 1 : 0;

      toPatchEmbedding = new Sequential(new LayerNorm(patchDim), new Linear(patchDim, dim), new LayerNorm(dim));
      clsToken = new Parameter(Tensor.randn(Shape.of(numClsTokens, dim)));
      posEmbedding = new Parameter(Tensor.randn(Shape.of(numPatches + numClsTokens, dim)));
      this.dropout = new Dropout(embDropout);
      transformer = new Transformer(dim, depth, heads, dimHead, mlpDim, dropout);
      this.pool = pool;
      mlpHead = numClasses > 0 ? new Linear(dim, numClasses) : null;
    }

    /** {@code Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)')}. */
    Tensor rearrangePatches(Tensor img) {
      long b = img.size(0), c = img.size(1), h = img.size(2) / patchHeight, w = img.size(3) / patchWidth;
      return img.view(b, c, h, patchHeight, w, patchWidth).permute(0, 2, 4, 3, 5, 1)
          .reshape(b, h * w, (long) patchHeight * patchWidth * c);
    }

    Tensor forward(Tensor img) {
      long batch = img.size(0);
      Tensor x = toPatchEmbedding.forward(rearrangePatches(img));
      if (pool.equals("cls")) {
        Tensor clsTokens = clsToken.unsqueeze(0).expand(batch, clsToken.size(0), clsToken.size(1));
        x = Tensor.cat(List.of(clsTokens, x), 1);
      } // with pool 'mean' there are no class tokens: the concatenation adds nothing
      long seq = x.size(1);
      x = x.add(posEmbedding.narrow(0, 0, seq));
      x = dropout.forward(x);
      x = transformer.forward(x);
      if (mlpHead == null) {
        return x;
      }
      x = pool.equals("mean") ? x.mean(1) : x.select(1, 0);
      return mlpHead.forward(x);
    }
  }

  public static void run(Device device) {
    ViT v = new ViT(32, 8, 10, 32, 2, 4, 64, "cls", 3, 8, 0.1, 0.1);
    v.toDevice(device);

    Tensor img = Tensor.randn(Shape.of(2, 3, 32, 32), device);
    v.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor preds = v.forward(img); // (2, 10)
      System.out.println("preds " + preds.shape());
    }

    v.train();
    dev.ondevice.optim.Adam adam = new dev.ondevice.optim.Adam(v.parameters(), 3e-4);
    Tensor labels = Tensor.randint(0, 10, Shape.of(2), device);
    Tensor loss = new dev.ondevice.nn.CrossEntropyLoss().forward(v.forward(img), labels);
    loss.backward();
    adam.step();
    System.out.println("one training step");
  }
}
