package dev.ondevice.io;

import java.util.List;
import java.util.Map;

/**
 * A validated safetensors header: the {@code __metadata__} strings (in file order) and the tensor
 * entries, ordered by their data, which they cover from 0 without holes or overlaps.
 */
record Header(Map<String, String> metadata, List<TensorInfo> tensors) {
  /** The bytes of data the tensors cover: the end of the last one. */
  long dataBytes() {
    return tensors.isEmpty() ? 0 : tensors.get(tensors.size() - 1).end;
  }
}
