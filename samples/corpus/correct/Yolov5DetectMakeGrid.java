package corpus.correct;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.List;

/**
 * YOLOv5's Detect head at inference: {@code _make_grid} builds the cell grid and the anchor grid
 * with {@code device=self.anchors[i].device} (a registered buffer), caches them per level in the
 * plain lists {@code self.grid} and {@code self.anchor_grid}, which BaseModel's {@code _apply}
 * override moves along with {@code stride}.
 *
 * <p>Source: https://github.com/ultralytics/yolov5/blob/master/models/yolo.py
 *
 * <p>Ported: Detect (anchors buffer, the 1x1 output convs, forward with the grid cache test,
 * _make_grid as written), DetectionModel's stride computation from a forward pass on zeros and
 * {@code m.anchors /= m.stride.view(-1, 1, 1)}, and BaseModel._apply moving stride, grid and
 * anchor_grid. The grid lists and stride cannot be tensor fields of a model here (the processor
 * rejects unregistered tensors and tensor lists), so they sit in a plain holder object and
 * {@code toDevice} is overridden to move them, as {@code _apply} is. Left out: the yaml parser and
 * the real backbone (three stride-2 convolutions stand in), Segment, export, augment, bias init.
 * {@code meshgrid} and {@code split} are views, expands and {@code narrow}s.
 *
 * <p>Outcome: completes
 */
public final class Yolov5DetectMakeGrid {
  private Yolov5DetectMakeGrid() {}

  /** Detect's tensors that are not parameters or registered buffers. */
  static final class Unregistered {
    Tensor stride;
    final List<Tensor> grid = new ArrayList<>();
    final List<Tensor> anchorGrid = new ArrayList<>();
  }

  static final class Detect extends Model {
    final int nc, no, nl, na;
    final Unregistered state = new Unregistered();
    @Buffer Tensor anchors;
    final List<Conv2d> m = new ArrayList<>();

    Detect(int nc, float[][] anchors, int[] ch) {
      this.nc = nc; no = nc + 5; nl = anchors.length; na = anchors[0].length / 2;
      for (int i = 0; i < nl; i++) {
        state.grid.add(Tensor.empty(Shape.of(0), dev.ondevice.DType.FLOAT32, Device.cpu()));
        state.anchorGrid.add(Tensor.empty(Shape.of(0), dev.ondevice.DType.FLOAT32, Device.cpu()));
      }
      this.anchors = Tensor.of(anchors).view(nl, -1, 2);
      for (int x : ch) {
        m.add(new Conv2d(x, no * na, 1));
      }
    }

    Object[] forward(List<Tensor> x) {
      List<Tensor> z = new ArrayList<>();
      for (int i = 0; i < nl; i++) {
        x.set(i, m.get(i).forward(x.get(i)));
        long bs = x.get(i).size(0), ny = x.get(i).size(2), nx = x.get(i).size(3);
        x.set(i, x.get(i).view(bs, na, no, ny, nx).permute(0, 1, 3, 4, 2).contiguous());
        if (!isTraining()) {
          Tensor g = state.grid.get(i);
          if (g.dim() < 4 || g.size(2) != ny || g.size(3) != nx) {
            Tensor[] grids = makeGrid(nx, ny, i);
            state.grid.set(i, grids[0]);
            state.anchorGrid.set(i, grids[1]);
          }
          Tensor s = x.get(i).sigmoid();
          Tensor xy = s.narrow(4, 0, 2), wh = s.narrow(4, 2, 2), conf = s.narrow(4, 4, nc + 1);
          xy = xy.mul(2).add(state.grid.get(i)).mul(state.stride.select(0, i));
          wh = wh.mul(2).pow(2).mul(state.anchorGrid.get(i));
          Tensor y = Tensor.cat(List.of(xy, wh, conf), 4);
          z.add(y.view(bs, na * nx * ny, no));
        }
      }
      return isTraining() ? new Object[] {x} : new Object[] {Tensor.cat(z, 1), x};
    }

    Tensor[] makeGrid(long nx, long ny, int i) {
      Device d = anchors.select(0, i).device();
      dev.ondevice.DType t = anchors.select(0, i).dtype();
      Tensor y = Tensor.arange(0, ny, 1, t, d), x = Tensor.arange(0, nx, 1, t, d);
      Tensor yv = y.view(ny, 1).expand(ny, nx), xv = x.view(1, nx).expand(ny, nx);
      Tensor grid = Tensor.stack(List.of(xv, yv), 2).expand(1, na, ny, nx, 2).sub(0.5);
      Tensor anchorGrid = anchors.select(0, i).mul(state.stride.select(0, i)).view(1, na, 1, 1, 2).expand(1, na, ny, nx, 2);
      return new Tensor[] {grid, anchorGrid};
    }
  }

  static final class DetectionModel extends Model {
    final Conv2d p3 = new Conv2d(3, 8, 3, 8, 1, true);
    final Conv2d p4 = new Conv2d(8, 16, 3, 2, 1, true);
    final Conv2d p5 = new Conv2d(16, 32, 3, 2, 1, true);
    final Detect detect;

    DetectionModel(int nc, float[][] anchors) {
      detect = new Detect(nc, anchors, new int[] {8, 16, 32});
      long s = 64;
      Object[] out = forward(Tensor.zeros(Shape.of(1, 3, s, s)));
      @SuppressWarnings("unchecked") List<Tensor> maps = (List<Tensor>) out[0];
      float[] stride = new float[maps.size()];
      for (int i = 0; i < stride.length; i++) {
        stride[i] = (float) s / maps.get(i).size(-2);
      }
      detect.state.stride = Tensor.of(stride);
      detect.anchors = detect.anchors.div(detect.state.stride.view(-1, 1, 1));
    }

    Object[] forward(Tensor img) {
      Tensor a = p3.forward(img).relu(), b = p4.forward(a).relu(), c = p5.forward(b).relu();
      return detect.forward(new ArrayList<>(List.of(a, b, c)));
    }

    /** BaseModel._apply: moves Detect's stride, grid and anchor_grid along with the model. */
    @Override
    public void toDevice(Device device) {
      super.toDevice(device);
      Unregistered m = detect.state;
      m.stride = m.stride.to(device);
      m.grid.replaceAll(t -> t.to(device));
      m.anchorGrid.replaceAll(t -> t.to(device));
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    float[][] anchors = {{10, 13, 16, 30, 33, 23}, {30, 61, 62, 45, 59, 119}, {116, 90, 156, 198, 373, 326}};
    DetectionModel model = new DetectionModel(4, anchors);
    model.toDevice(device);
    model.eval();
    for (int size : new int[] {64, 64, 96}) {
      Object[] out = model.forward(Tensor.randn(Shape.of(2, 3, size, size), device));
      Tensor pred = (Tensor) out[0];
      System.out.println("predictions " + pred.shape());
    }
  }
}
