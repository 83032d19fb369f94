package dev.ondevice.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The temporary file of an atomic save, {@code .<name>.<random>.tmp} next to its target, locked by
 * its writer from creation to rename; and the removal of those that saves killed midway left
 * behind.
 *
 * <p>A temporary file is stale, and removed by the next save to the same target, when both hold:
 *
 * <ul>
 *   <li>its lock is free: the writer holds an exclusive lock ({@link FileChannel#tryLock()}) from
 *       the moment it creates the file until it has renamed it, and the operating system releases a
 *       lock when its process dies, however it dies; a lock held by another process or another
 *       thread of this one means a save in progress, and the file is left alone;
 *   <li>it was last modified more than {@link #STALE_AFTER} ago: this covers the instant between
 *       the file's creation and its lock, and file systems whose locks are unreliable (some network
 *       file systems), where a writer busy writing keeps the modification time recent.
 * </ul>
 *
 * <p>Removal is best effort: a leftover that cannot be removed (permissions) is no reason to fail
 * the save that found it.
 */
final class TemporaryFile implements AutoCloseable {
  /** How long a temporary file must have been left unmodified before a later save may remove it. */
  static final Duration STALE_AFTER = Duration.ofSeconds(10);

  private static final Pattern RANDOM = Pattern.compile("[0-9a-f]{1,16}");

  private final Path path;
  private final FileChannel channel;

  private TemporaryFile(Path path, FileChannel channel) {
    this.path = path;
    this.channel = channel;
  }

  /** A new, empty, locked temporary file for {@code target} in {@code dir}. */
  static TemporaryFile create(Path dir, String target) throws IOException {
    while (true) {
      Path temp =
          dir.resolve(
              "."
                  + target
                  + "."
                  + Long.toHexString(ThreadLocalRandom.current().nextLong())
                  + ".tmp");
      FileChannel ch;
      try {
        ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      } catch (FileAlreadyExistsException e) {
        continue; // another name is drawn
      }
      try {
        ch.lock();
        return new TemporaryFile(temp, ch);
      } catch (IOException | RuntimeException e) {
        ch.close();
        Files.deleteIfExists(temp);
        throw e;
      }
    }
  }

  /** The file. */
  Path path() {
    return path;
  }

  /** The channel to write through, open and locked until {@link #close()}. */
  FileChannel channel() {
    return channel;
  }

  /** Releases the lock and closes the channel. */
  @Override
  public void close() throws IOException {
    channel.close();
  }

  /** Removes the stale temporary files of {@code target} in {@code dir} (see the class comment). */
  static void removeStale(Path dir, String target) {
    Instant cutoff = Instant.now().minus(STALE_AFTER);
    try (DirectoryStream<Path> files =
        Files.newDirectoryStream(dir, p -> isTemporaryOf(p, target))) {
      for (Path p : files) {
        try {
          if (Files.getLastModifiedTime(p).toInstant().isBefore(cutoff)) {
            removeIfUnlocked(p);
          }
        } catch (IOException e) {
          // Best effort: gone meanwhile, or not ours to remove.
        }
      }
    } catch (IOException e) {
      // Best effort: a folder that cannot be listed will fail the save itself, with its message.
    }
  }

  /**
   * Whether {@code p} is named as a temporary file of {@code target}: {@code .<target>.<hex>.tmp}.
   */
  static boolean isTemporaryOf(Path p, String target) {
    String name = p.getFileName().toString();
    String prefix = "." + target + ".";
    return name.length() > prefix.length() + ".tmp".length()
        && name.startsWith(prefix)
        && name.endsWith(".tmp")
        && RANDOM
            .matcher(name.substring(prefix.length(), name.length() - ".tmp".length()))
            .matches();
  }

  private static void removeIfUnlocked(Path p) throws IOException {
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException e) {
        return; // a save of this process is writing it
      }
      if (lock != null) {
        Files.deleteIfExists(p); // its writer is gone; the lock goes with the channel
      }
    }
  }
}
