package dev.ondevice.io;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntToLongFunction;

/**
 * Reads and writes the <a href="https://github.com/huggingface/safetensors">safetensors</a> format,
 * byte for byte as the reference implementation ({@code safetensors.torch.save_file} / {@code
 * load_file}):
 *
 * <ul>
 *   <li>8 bytes: {@code N}, the header length, an unsigned little-endian 64-bit integer;
 *   <li>N bytes: the header, a UTF-8 JSON object {@code {"__metadata__": {...}, "name": {"dtype":
 *       "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...}}, padded with spaces to a
 *       multiple of 8 bytes so that the data is 8-byte aligned;
 *   <li>the data: each tensor's elements, row-major, little-endian, at {@code data_offsets}
 *       relative to the start of the data.
 * </ul>
 *
 * <p><b>Writing</b> orders the tensors as the reference writer does, by descending dtype alignment
 * (I64 and F64, then F32, then BOOL) and then by name, writes the JSON without spaces with {@code
 * __metadata__} first (its keys sorted, for reproducible files), and saves to a file atomically: a
 * temporary file in the same directory, flushed to disk, then renamed over the target. Tensors of
 * any device are written (reading a device tensor waits for the device).
 *
 * <p><b>Reading</b> validates as the reference does: a header of at most 100 MB ({@link
 * #MAX_HEADER_SIZE}) that fits in the file, valid UTF-8, one JSON object (parsed with Jackson's
 * streaming parser, within the limits {@link #MAX_NESTING_DEPTH}, {@link #MAX_NAME_LENGTH}, {@link
 * #MAX_STRING_LENGTH} and {@link #MAX_TENSORS}) without duplicate keys where values are read,
 * {@code __metadata__} a map of strings to strings, known dtypes, shapes whose size times the
 * dtype's matches the offsets, and offsets that are in order, contiguous and cover the data
 * exactly, to the end of the file (no holes, no overlaps, no trailing bytes). Fields of a tensor
 * entry other than the three are ignored, as by the reference. Tensors come out on the CPU, in the
 * runtime's dtypes: F32, F64, I64 and BOOL as they are; F16 and BF16 widened to float32; I8, U8,
 * I16, U16, I32 and U32 widened to int64 (all exact). Other dtypes (U64, C64, the 8-, 6- and 4-bit
 * floats) are rejected with a message naming them. {@link Contents#fileDtype} tells the dtype a
 * tensor had in the file.
 *
 * <p>Every error is a {@link SafetensorsException} naming the file and the problem.
 */
public final class Safetensors {
  /** The largest header accepted, as in the reference: 100,000,000 bytes. */
  public static final long MAX_HEADER_SIZE = 100_000_000L;

  /**
   * The most tensors a file may hold: 100,000. The reference has no limit but the header's size;
   * this one bounds the memory a hostile header can make a reader allocate, far above real files (a
   * large language model holds a few thousand tensors per file).
   */
  public static final int MAX_TENSORS = 100_000;

  /**
   * The deepest nesting of JSON arrays and objects in a header: 128, {@code serde_json}'s limit.
   */
  public static final int MAX_NESTING_DEPTH = 128;

  /** The longest tensor name or metadata key, in UTF-16 chars: 50,000. */
  public static final int MAX_NAME_LENGTH = 50_000;

  /** The longest metadata value (or other JSON string in a header), in UTF-16 chars: 20,000,000. */
  public static final int MAX_STRING_LENGTH = 20_000_000;

  /** The header key of the free-form string metadata. */
  public static final String METADATA_KEY = "__metadata__";

  private static final int LENGTH_BYTES = 8;
  private static final int CHUNK = 1 << 20;
  private static final String BYTES_SOURCE = "<bytes>";

  private Safetensors() {}

  // ---------------------------------------------------------------- dtypes

  /** The dtypes of the format, in the reference's declaration order (the writer sorts on it). */
  enum FileDtype {
    BOOL(8, DType.BOOL),
    F4(4, null),
    F6_E2M3(6, null),
    F6_E3M2(6, null),
    U8(8, DType.INT64),
    I8(8, DType.INT64),
    F8_E5M2(8, null),
    F8_E4M3(8, null),
    F8_E8M0(8, null),
    F8_E4M3FNUZ(8, null),
    F8_E5M2FNUZ(8, null),
    I16(16, DType.INT64),
    U16(16, DType.INT64),
    F16(16, DType.FLOAT32),
    BF16(16, DType.FLOAT32),
    I32(32, DType.INT64),
    U32(32, DType.INT64),
    F32(32, DType.FLOAT32),
    C64(64, null),
    F64(64, DType.FLOAT64),
    I64(64, DType.INT64),
    U64(64, null);

    final int bits;

    /** The runtime dtype it is read as, or null if this runtime cannot read it. */
    final DType readAs;

    FileDtype(int bits, DType readAs) {
      this.bits = bits;
      this.readAs = readAs;
    }

    /**
     * Turns the little-endian elements of a file into a CPU tensor; only for a dtype this runtime
     * reads (one with a {@link #readAs}).
     */
    Tensor decode(ByteBuffer b, int n, Shape s) {
      return switch (this) {
        case BOOL -> decodeBool(b, n, s);
        case U8 -> longs(s, n, i -> b.get(i) & 0xFF);
        case I8 -> longs(s, n, b::get);
        case I16 -> longs(s, n, i -> b.getShort(2 * i));
        case U16 -> longs(s, n, i -> b.getShort(2 * i) & 0xFFFF);
        case F16 -> floats(s, n, i -> halfToFloat(b.getShort(2 * i)));
        case BF16 -> floats(s, n, i -> Float.intBitsToFloat((b.getShort(2 * i) & 0xFFFF) << 16));
        case I32 -> longs(s, n, i -> b.getInt(4 * i));
        case U32 -> longs(s, n, i -> b.getInt(4 * i) & 0xFFFFFFFFL);
        case F32 -> decodeF32(b, n, s);
        case F64 -> decodeF64(b, n, s);
        case I64 -> decodeI64(b, n, s);
        case F4, F6_E2M3, F6_E3M2, F8_E5M2, F8_E4M3, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, C64, U64 ->
            throw new IllegalStateException(this + " is not read by this runtime");
      };
    }

    static FileDtype parse(String name) {
      for (FileDtype d : values()) {
        if (d.name().equals(name)) {
          return d;
        }
      }
      return null;
    }

    static FileDtype of(DType dtype) {
      return switch (dtype) {
        case BOOL -> BOOL;
        case INT64 -> I64;
        case FLOAT32 -> F32;
        case FLOAT64 -> F64;
      };
    }
  }

  // ---------------------------------------------------------------- writing

  /**
   * Writes {@code tensors} and {@code metadata} (null for none) to {@code file}, atomically: the
   * bytes go to a temporary file in the same directory, which is flushed to disk ({@code fsync})
   * and then renamed over {@code file}. On any failure {@code file} is left as it was and the
   * temporary file is removed.
   *
   * @throws IllegalArgumentException for a null or reserved name ({@code __metadata__}), a name or
   *     metadata string that is not valid Unicode or is longer than {@link #MAX_NAME_LENGTH} (names
   *     and keys) or {@link #MAX_STRING_LENGTH} (values), more than {@link #MAX_TENSORS} tensors,
   *     or a header over {@link #MAX_HEADER_SIZE}; nothing is written then
   * @throws SafetensorsException naming the file, if reading a tensor or writing failed
   * @throws IOException if the temporary file cannot be created or moved
   */
  public static void save(Map<String, Tensor> tensors, Map<String, String> metadata, Path file)
      throws IOException {
    save(tensors, metadata, file, false);
  }

  /**
   * As {@link #save(Map, Map, Path)}; with {@code checksum}, the metadata also holds a {@link
   * Checksum} of the whole file under {@value Checksum#KEY}, which {@link #load} verifies.
   */
  static void save(
      Map<String, Tensor> tensors, Map<String, String> metadata, Path file, boolean checksum)
      throws IOException {
    Plan plan = plan(tensors, metadata, "Safetensors.save(" + file + ")", checksum);
    writeAtomically(
        file,
        ch -> {
          plan.write(ch, file.toString());
          if (plan.checksum != null) {
            plan.writeChecksum(ch);
          }
        });
  }

  /**
   * The bytes of a safetensors file holding {@code tensors} and {@code metadata} (null for none):
   * the reference's {@code safetensors.torch.save}.
   *
   * @throws IllegalArgumentException as {@link #save}
   * @throws IllegalStateException if reading a tensor failed (a device error)
   */
  public static byte[] serialize(Map<String, Tensor> tensors, Map<String, String> metadata) {
    Plan plan = plan(tensors, metadata, "Safetensors.serialize", false);
    ByteArrayOutputStream out =
        new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8, plan.totalBytes()));
    try {
      plan.write(Channels.newChannel(out), BYTES_SOURCE);
    } catch (SafetensorsException e) {
      throw new IllegalStateException(e.getMessage(), e.getCause());
    } catch (IOException e) {
      throw new IllegalStateException("Safetensors.serialize: writing to memory failed: " + e, e);
    }
    return out.toByteArray();
  }

  /** Writes a file's bytes to a channel. */
  @FunctionalInterface
  interface Writer {
    void write(FileChannel channel) throws IOException;
  }

  /**
   * Runs {@code writer} on a new temporary file next to {@code file}, flushes it to disk, and
   * renames it over {@code file}; on any failure removes it and leaves {@code file} untouched.
   * First removes the temporary files of earlier saves to {@code file} that were killed midway
   * ({@link TemporaryFile#removeStale}).
   */
  static void writeAtomically(Path file, Writer writer) throws IOException {
    Path target = file.toAbsolutePath();
    Path dir = target.getParent();
    if (!Files.isDirectory(dir)) {
      throw new NoSuchFileException(
          file.toString(), null, "the folder " + dir + " does not exist; create it first");
    }
    String name = target.getFileName().toString();
    TemporaryFile.removeStale(dir, name);
    TemporaryFile temp;
    try {
      temp = TemporaryFile.create(dir, name);
    } catch (IOException e) {
      throw notWritten(file, e);
    }
    try (temp) {
      writer.write(temp.channel());
      temp.channel().force(true);
      try {
        // Renamed while still locked, so that no other save takes it for a leftover.
        Files.move(
            temp.path(),
            target,
            StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new SafetensorsException(
            file.toString(),
            "the file system cannot rename "
                + temp.path()
                + " over it"
                + " atomically; the file was not written",
            e);
      }
    } catch (Throwable t) {
      try {
        Files.deleteIfExists(temp.path());
      } catch (IOException cleanup) {
        t.addSuppressed(cleanup);
      }
      if (t instanceof IOException e && !(e instanceof SafetensorsException)) {
        throw notWritten(file, e);
      }
      throw t;
    }
    syncDirectory(dir);
  }

  /** An I/O failure of the temporary file, reported for the file being written. */
  private static IOException notWritten(Path file, IOException cause) {
    return new IOException(
        file + ": not written (" + cause + "); the file there before, if any, is untouched", cause);
  }

  /**
   * Makes the rename durable by flushing the directory. Some platforms (Windows) cannot open a
   * directory; the rename is atomic there all the same.
   */
  private static void syncDirectory(Path dir) {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // Not supported on this platform: the file is complete, only the rename's durability on a
      // crash is left to the file system.
    }
  }

  /** One tensor to write; a plan holds them in the order of their data in the file. */
  private static final class Entry {
    final String name;
    final Tensor tensor;

    Entry(String name, Tensor tensor) {
      this.name = name;
      this.tensor = tensor;
    }
  }

  /** The header and the order of the data of a file to write. */
  private static final class Plan {
    final byte[] header;
    final List<Entry> entries;
    final long dataBytes;

    /** What the checksum describes, or null for a file without one. */
    final Checksum checksum;

    /** Where in the header the checksum's value is, or -1. */
    final int checksumOffset;

    Plan(
        byte[] header, List<Entry> entries, long dataBytes, Checksum checksum, int checksumOffset) {
      this.header = header;
      this.entries = entries;
      this.dataBytes = dataBytes;
      this.checksum = checksum;
      this.checksumOffset = checksumOffset;
    }

    long totalBytes() {
      return LENGTH_BYTES + header.length + dataBytes;
    }

    void write(WritableByteChannel ch, String source) throws IOException {
      ByteBuffer buf = ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
      buf.putLong(header.length).flip();
      writeFully(ch, buf);
      writeFully(ch, ByteBuffer.wrap(header));
      WritableByteChannel data =
          checksum == null
              ? ch
              : new WritableByteChannel() {
                @Override
                public int write(ByteBuffer src) throws IOException {
                  int n = src.remaining();
                  checksum.update(src);
                  writeFully(ch, src);
                  return n;
                }

                @Override
                public boolean isOpen() {
                  return ch.isOpen();
                }

                @Override
                public void close() throws IOException {
                  ch.close();
                }
              };
      for (Entry e : entries) {
        try {
          writeData(e.tensor, data, buf);
        } catch (RuntimeException ex) {
          throw new SafetensorsException(
              source,
              "reading tensor '"
                  + e.name
                  + "' ("
                  + e.tensor.dtype()
                  + " on "
                  + e.tensor.device()
                  + ") failed, the file was not written: "
                  + ex.getMessage(),
              ex);
        }
      }
    }

    /** Overwrites the checksum's placeholder in the header written to {@code ch} with its value. */
    void writeChecksum(FileChannel ch) throws IOException {
      ByteBuffer value = ByteBuffer.wrap(checksum.value().getBytes(StandardCharsets.US_ASCII));
      long position = (long) LENGTH_BYTES + checksumOffset;
      while (value.hasRemaining()) {
        position += ch.write(value, position);
      }
    }
  }

  private static Plan plan(
      Map<String, Tensor> tensors, Map<String, String> metadata, String op, boolean checksum) {
    Objects.requireNonNull(tensors, op + ": tensors is null");
    if (tensors.size() > MAX_TENSORS) {
      throw new IllegalArgumentException(
          op
              + ": "
              + tensors.size()
              + " tensors, more than the "
              + MAX_TENSORS
              + " readers accept (Safetensors.MAX_TENSORS); save them to several files");
    }
    List<Map.Entry<String, Tensor>> sorted = new ArrayList<>(tensors.size());
    for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
      String name = e.getKey();
      if (name == null) {
        throw new IllegalArgumentException(op + ": a tensor name is null");
      }
      if (name.equals(METADATA_KEY)) {
        throw new IllegalArgumentException(
            op
                + ": '"
                + METADATA_KEY
                + "' is reserved for the metadata, it cannot"
                + " name a tensor");
      }
      requireWritable(op, "tensor name", name, MAX_NAME_LENGTH);
      if (e.getValue() == null) {
        throw new IllegalArgumentException(op + ": tensor '" + name + "' is null");
      }
      sorted.add(e);
    }
    // The reference sorts by descending dtype (its enum order, roughly the alignment), then name.
    sorted.sort(
        Comparator.<Map.Entry<String, Tensor>, FileDtype>comparing(
                e -> FileDtype.of(e.getValue().dtype()))
            .reversed()
            .thenComparing(Map.Entry::getKey, Safetensors::compareCodePoints));

    StringBuilder json = new StringBuilder("{");
    int checksumChars = -1;
    Map<String, String> written = metadata;
    if (checksum) {
      if (metadata != null && metadata.containsKey(Checksum.KEY)) {
        throw new IllegalArgumentException(
            op
                + ": the metadata key '"
                + Checksum.KEY
                + "' is reserved for the"
                + " checksum the save writes");
      }
      written = new LinkedHashMap<>(metadata == null ? Map.of() : metadata);
      written.put(Checksum.KEY, Checksum.PLACEHOLDER);
    }
    if (written != null) {
      Map<String, String> ordered = new TreeMap<>(Safetensors::compareCodePoints);
      for (Map.Entry<String, String> m : written.entrySet()) {
        if (m.getKey() == null || m.getValue() == null) {
          throw new IllegalArgumentException(
              op
                  + ": metadata entry "
                  + m.getKey()
                  + "="
                  + m.getValue()
                  + " has a null; metadata maps strings to strings");
        }
        requireWritable(op, "metadata key", m.getKey(), MAX_NAME_LENGTH);
        requireWritable(
            op, "metadata value of '" + m.getKey() + "'", m.getValue(), MAX_STRING_LENGTH);
        ordered.put(m.getKey(), m.getValue());
      }
      JsonStrings.append(json, METADATA_KEY);
      json.append(":{");
      boolean first = true;
      for (Map.Entry<String, String> m : ordered.entrySet()) {
        if (!first) {
          json.append(',');
        }
        first = false;
        JsonStrings.append(json, m.getKey());
        json.append(':');
        if (checksum && m.getKey().equals(Checksum.KEY)) {
          checksumChars = json.length() + 1; // after the opening quote
        }
        JsonStrings.append(json, m.getValue());
      }
      json.append('}');
    }
    List<Entry> entries = new ArrayList<>(sorted.size());
    List<Checksum.Described> described = new ArrayList<>(sorted.size());
    long offset = 0;
    for (Map.Entry<String, Tensor> e : sorted) {
      Tensor t = e.getValue();
      FileDtype dtype = FileDtype.of(t.dtype());
      long bytes = t.numel() * t.dtype().byteSize();
      entries.add(new Entry(e.getKey(), t));
      if (json.length() > 1) {
        json.append(',');
      }
      JsonStrings.append(json, e.getKey());
      json.append(":{\"dtype\":\"").append(dtype.name()).append("\",\"shape\":[");
      long[] shape = t.shape().toArray();
      for (int i = 0; i < shape.length; i++) {
        json.append(i == 0 ? "" : ",").append(shape[i]);
      }
      json.append("],\"data_offsets\":[")
          .append(offset)
          .append(',')
          .append(offset + bytes)
          .append("]}");
      described.add(
          new Checksum.Described(offset, e.getKey(), dtype.name(), Checksum.shape(shape)));
      offset += bytes;
    }
    json.append('}');
    byte[] utf8 = json.toString().getBytes(StandardCharsets.UTF_8);
    int padded = (utf8.length + LENGTH_BYTES - 1) / LENGTH_BYTES * LENGTH_BYTES;
    if (padded > MAX_HEADER_SIZE) {
      throw new IllegalArgumentException(
          op
              + ": the header would have "
              + padded
              + " bytes, more than the "
              + MAX_HEADER_SIZE
              + " readers accept");
    }
    byte[] header = Arrays.copyOf(utf8, padded);
    Arrays.fill(header, utf8.length, padded, (byte) ' ');
    if (!checksum) {
      return new Plan(header, entries, offset, null, -1);
    }
    int checksumOffset = json.substring(0, checksumChars).getBytes(StandardCharsets.UTF_8).length;
    return new Plan(header, entries, offset, new Checksum(written, described), checksumOffset);
  }

  /**
   * Rejects a string a reader would refuse: one over {@code maxLength} chars, or not valid Unicode.
   */
  private static void requireWritable(String op, String what, String s, int maxLength) {
    if (s.length() > maxLength) {
      throw new IllegalArgumentException(
          op
              + ": the "
              + what
              + " \""
              + s.substring(0, 20)
              + "...\" has "
              + s.length()
              + " chars, more than the "
              + maxLength
              + " readers accept");
    }
    int at = JsonStrings.unpairedSurrogate(s);
    if (at >= 0) {
      throw new IllegalArgumentException(
          op
              + ": the "
              + what
              + " \""
              + s
              + "\" has an unpaired surrogate at index "
              + at
              + ", which UTF-8 cannot encode");
    }
  }

  /** Orders strings by code point, as Rust orders them (byte-wise UTF-8). */
  static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  /** Writes {@code t}'s elements, row-major and little-endian, through the buffer {@code buf}. */
  private static void writeData(Tensor t, WritableByteChannel ch, ByteBuffer buf)
      throws IOException {
    switch (t.dtype()) {
      case FLOAT32 -> {
        float[] a = t.toFloatArray();
        for (int i = 0; i < a.length; i += CHUNK / 4) {
          int n = Math.min(a.length - i, CHUNK / 4);
          buf.clear();
          buf.asFloatBuffer().put(a, i, n);
          buf.limit(n * 4);
          writeFully(ch, buf);
        }
      }
      case FLOAT64 -> {
        double[] a = t.toDoubleArray();
        for (int i = 0; i < a.length; i += CHUNK / 8) {
          int n = Math.min(a.length - i, CHUNK / 8);
          buf.clear();
          buf.asDoubleBuffer().put(a, i, n);
          buf.limit(n * 8);
          writeFully(ch, buf);
        }
      }
      case INT64 -> {
        long[] a = t.toLongArray();
        for (int i = 0; i < a.length; i += CHUNK / 8) {
          int n = Math.min(a.length - i, CHUNK / 8);
          buf.clear();
          buf.asLongBuffer().put(a, i, n);
          buf.limit(n * 8);
          writeFully(ch, buf);
        }
      }
      case BOOL -> {
        boolean[] a = t.toBooleanArray();
        for (int i = 0; i < a.length; i += CHUNK) {
          int n = Math.min(a.length - i, CHUNK);
          buf.clear();
          for (int k = 0; k < n; k++) {
            buf.put((byte) (a[i + k] ? 1 : 0));
          }
          buf.flip();
          writeFully(ch, buf);
        }
      }
    }
  }

  private static void writeFully(WritableByteChannel ch, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
  }

  // ---------------------------------------------------------------- reading

  /**
   * The tensors (on the CPU, in file order) and metadata of the safetensors file {@code file}: the
   * reference's {@code safetensors.torch.load_file(file)}.
   *
   * @throws SafetensorsException naming the file and the problem, for a file that is not valid
   *     safetensors (truncated, corrupted, inconsistent), holds a dtype this runtime cannot read,
   *     does not match the checksum it records ({@code ondevice/crc32c}, which checkpoints carry),
   *     or is a directory
   * @throws IOException if the file cannot be read
   */
  public static Contents load(Path file) throws IOException {
    if (Files.isDirectory(file)) {
      throw new SafetensorsException(
          file.toString(), "is a directory, not a safetensors file; pass the file inside it");
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return read(new ChannelSource(ch), file.toString());
    }
  }

  /**
   * The tensors and metadata of the safetensors bytes {@code bytes}: the reference's {@code
   * safetensors.torch.load(bytes)}.
   *
   * @throws SafetensorsException as {@link #load}
   */
  public static Contents deserialize(byte[] bytes) throws SafetensorsException {
    try {
      return read(new ArraySource(bytes), BYTES_SOURCE);
    } catch (SafetensorsException e) {
      throw e;
    } catch (IOException e) {
      throw new SafetensorsException(BYTES_SOURCE, "reading failed: " + e, e);
    }
  }

  /** The tensors and metadata read from a safetensors file. */
  public static final class Contents {
    private final Map<String, Tensor> tensors;
    private final Map<String, String> metadata;
    private final Map<String, FileDtype> fileDtypes;

    Contents(
        Map<String, Tensor> tensors,
        Map<String, String> metadata,
        Map<String, FileDtype> fileDtypes) {
      this.tensors = Collections.unmodifiableMap(tensors);
      this.metadata = Collections.unmodifiableMap(metadata);
      this.fileDtypes = fileDtypes;
    }

    /** The tensors by name, on the CPU, in the order of their data in the file. */
    public Map<String, Tensor> tensors() {
      return tensors;
    }

    /** The {@code __metadata__} map; empty when the file has none. */
    public Map<String, String> metadata() {
      return metadata;
    }

    /**
     * The dtype tensor {@code name} has in the file ({@code "F16"}, {@code "I32"}, ...), which may
     * be narrower than the dtype it was read as.
     *
     * @throws IllegalArgumentException if there is no tensor of that name
     */
    public String fileDtype(String name) {
      FileDtype d = fileDtypes.get(name);
      if (d == null) {
        throw new IllegalArgumentException("fileDtype: no tensor named '" + name + "'");
      }
      return d.name();
    }
  }

  /** Random access to the bytes being read. */
  private interface Source {
    long size() throws IOException;

    /**
     * Fills {@code dst} from {@code position}; the caller has checked the range is inside {@link
     * #size()}.
     */
    void readFully(long position, ByteBuffer dst) throws IOException;
  }

  private static final class ChannelSource implements Source {
    private static final int HEAP_CHUNK = 1 << 20;
    private final FileChannel ch;

    ChannelSource(FileChannel ch) {
      this.ch = ch;
    }

    @Override
    public long size() throws IOException {
      return ch.size();
    }

    /**
     * Reads straight into a direct buffer; into a heap buffer at most {@value #HEAP_CHUNK} bytes at
     * a time, since the JDK reads a heap buffer through a temporary direct buffer of the request's
     * size, which it then keeps per thread (a 1 GB request would hold 1 GB of direct memory).
     */
    @Override
    public void readFully(long position, ByteBuffer dst) throws IOException {
      long p = position;
      int limit = dst.limit();
      while (dst.hasRemaining()) {
        if (!dst.isDirect()) {
          dst.limit(Math.min(limit, dst.position() + HEAP_CHUNK));
        }
        int n = ch.read(dst, p);
        dst.limit(limit);
        if (n < 0) {
          throw new IOException(
              "the file ended at byte " + p + " while being read: was it truncated meanwhile?");
        }
        p += n;
      }
    }
  }

  private static final class ArraySource implements Source {
    private final byte[] bytes;

    ArraySource(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public long size() {
      return bytes.length;
    }

    @Override
    public void readFully(long position, ByteBuffer dst) {
      dst.put(bytes, (int) position, dst.remaining());
    }
  }

  private static Contents read(Source src, String source) throws IOException {
    long size = src.size();
    if (size < LENGTH_BYTES) {
      throw new SafetensorsException(
          source,
          "header too small: the file has "
              + size
              + " bytes, fewer than the 8 of"
              + " the header length");
    }
    ByteBuffer lengthBytes = ByteBuffer.allocate(LENGTH_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    src.readFully(0, lengthBytes);
    long n = lengthBytes.getLong(0);
    if (n < 0 || n > MAX_HEADER_SIZE) {
      throw new SafetensorsException(
          source,
          "header too large: the header length is "
              + Long.toUnsignedString(n)
              + " bytes, more than the "
              + MAX_HEADER_SIZE
              + " accepted (is this a safetensors file?)");
    }
    if (LENGTH_BYTES + n > size) {
      throw new SafetensorsException(
          source,
          "invalid header length: the header length is "
              + n
              + " bytes but only "
              + (size - LENGTH_BYTES)
              + " follow it (truncated file, or not a safetensors file)");
    }
    ByteBuffer headerBytes = ByteBuffer.allocate((int) n);
    src.readFully(LENGTH_BYTES, headerBytes);
    headerBytes.flip();
    Header header = HeaderReader.read(headerBytes, source);
    Map<String, String> metadata = header.metadata();
    List<TensorInfo> infos = header.tensors();
    long dataBytes = header.dataBytes();
    long available = size - LENGTH_BYTES - n;
    if (dataBytes > available) {
      throw new SafetensorsException(
          source,
          "truncated: the header declares "
              + dataBytes
              + " bytes of tensor data"
              + " but only "
              + available
              + " follow it");
    }
    if (dataBytes < available) {
      throw new SafetensorsException(
          source,
          "incomplete metadata: the tensors cover "
              + dataBytes
              + " bytes of data but "
              + available
              + " follow the header; the data must be covered exactly, to the end of the file");
    }
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    Map<String, FileDtype> fileDtypes = new LinkedHashMap<>();
    long dataStart = LENGTH_BYTES + n;
    Checksum checksum = null;
    String expected = metadata.get(Checksum.KEY);
    if (expected != null) {
      List<Checksum.Described> described = new ArrayList<>();
      for (TensorInfo info : infos) {
        described.add(
            new Checksum.Described(
                info.begin, info.name, info.dtype.name(), Checksum.shape(info.shape)));
      }
      checksum = new Checksum(metadata, described);
    }
    for (TensorInfo info : infos) {
      tensors.put(info.name, readTensor(src, source, info, dataStart, checksum));
      fileDtypes.put(info.name, info.dtype);
    }
    if (checksum != null && !checksum.value().equals(expected)) {
      throw new SafetensorsException(
          source,
          "checksum mismatch: the file records "
              + Checksum.KEY
              + "="
              + expected
              + " but its contents give "
              + checksum.value()
              + "; it was corrupted after it was written (a bit flip, a"
              + " partial copy): use another copy");
    }
    return new Contents(tensors, metadata, fileDtypes);
  }

  private static Tensor readTensor(
      Source src, String source, TensorInfo info, long dataStart, Checksum checksum)
      throws IOException {
    DType dtype = info.dtype.readAs;
    if (info.dtype.readAs == null) {
      throw new SafetensorsException(
          source,
          "tensor '"
              + info.name
              + "' has dtype "
              + info.dtype
              + ", which this runtime"
              + " cannot represent (it reads F32, F64, I64 and BOOL, and widens F16 and BF16 to float32 and I8, U8, I16,"
              + " U16, I32 and U32 to int64)");
    }
    long elements = 1;
    for (long d : info.shape) {
      if (d > Integer.MAX_VALUE) {
        throw new SafetensorsException(
            source,
            "tensor '"
                + info.name
                + "': shape "
                + Arrays.toString(info.shape)
                + " has a dimension larger than a tensor of this runtime can hold ("
                + Integer.MAX_VALUE
                + ")");
      }
      elements *= d;
    }
    if (elements * dtype.byteSize() > Integer.MAX_VALUE - 8) {
      throw new SafetensorsException(
          source,
          "tensor '"
              + info.name
              + "': shape "
              + Arrays.toString(info.shape)
              + " as "
              + dtype
              + " needs "
              + elements * dtype.byteSize()
              + " bytes, more than a tensor of this runtime can hold"
              + " (2 GiB)");
    }
    int n = (int) elements;
    if (info.dtype.bits == 8 * dtype.byteSize()
        && dtype != DType.BOOL
        && ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
      // The file's bytes are the tensor's: read straight into its memory, no copy, no heap buffer.
      return Tensor.fromHostBytes(
          Shape.of(info.shape),
          dtype,
          b -> {
            src.readFully(dataStart + info.begin, b);
            if (checksum != null) {
              checksum.update(b.duplicate().flip());
            }
          });
    }
    ByteBuffer bytes =
        ByteBuffer.allocate((int) (info.end - info.begin)).order(ByteOrder.LITTLE_ENDIAN);
    src.readFully(dataStart + info.begin, bytes);
    bytes.flip();
    if (checksum != null) {
      checksum.update(bytes);
    }
    return info.dtype.decode(bytes, n, Shape.of(info.shape));
  }

  private static Tensor decodeF32(ByteBuffer b, int n, Shape shape) {
    float[] v = new float[n];
    b.asFloatBuffer().get(v);
    return Tensor.of(v, shape, Device.cpu());
  }

  private static Tensor decodeF64(ByteBuffer b, int n, Shape shape) {
    double[] v = new double[n];
    b.asDoubleBuffer().get(v);
    return Tensor.of(v, shape, Device.cpu());
  }

  private static Tensor decodeI64(ByteBuffer b, int n, Shape shape) {
    long[] v = new long[n];
    b.asLongBuffer().get(v);
    return Tensor.of(v, shape, Device.cpu());
  }

  private static Tensor decodeBool(ByteBuffer b, int n, Shape shape) {
    boolean[] v = new boolean[n];
    for (int i = 0; i < n; i++) {
      v[i] = b.get(i) != 0;
    }
    return Tensor.of(v, shape.toArray());
  }

  private static Tensor longs(Shape shape, int n, IntToLongFunction element) {
    long[] v = new long[n];
    for (int i = 0; i < n; i++) {
      v[i] = element.applyAsLong(i);
    }
    return Tensor.of(v, shape, Device.cpu());
  }

  private static Tensor floats(Shape shape, int n, IntToDoubleFunction element) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) element.applyAsDouble(i);
    }
    return Tensor.of(v, shape, Device.cpu());
  }

  /** An IEEE 754 half-precision value as a float (exact). */
  static float halfToFloat(short half) {
    int h = half & 0xFFFF;
    int sign = (h & 0x8000) << 16;
    int exponent = (h >>> 10) & 0x1F;
    int mantissa = h & 0x3FF;
    if (exponent == 0x1F) {
      return Float.intBitsToFloat(sign | 0x7F800000 | (mantissa << 13));
    }
    if (exponent == 0) {
      float magnitude = mantissa * 0x1p-24f;
      return sign == 0 ? magnitude : -magnitude;
    }
    return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }
}
