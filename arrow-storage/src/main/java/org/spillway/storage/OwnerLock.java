package org.spillway.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A file whose OS lock tells whether the work it marks is still running: the OS releases the lock when its
 * process dies, even by kill -9, so a file that is present but unlocked marks work a killed process left
 * unfinished (a table writer's scratch directory, an interrupted TPC-H generation).
 *
 * <p>Locks of this JVM are also kept in a set and checked there first: on Linux, opening and closing another
 * channel on a locked file would drop this process's lock on it.
 */
public final class OwnerLock implements AutoCloseable {
  private static final Set<Path> HELD_HERE = ConcurrentHashMap.newKeySet();

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;

  private OwnerLock(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /** Creates (if needed) and locks {@code file}; fails if a live process holds it. */
  public static OwnerLock acquire(Path file) {
    Path key = file.toAbsolutePath().normalize();
    if (!HELD_HERE.add(key)) {
      throw new StorageException(file + " is held by a running operation of this process");
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(key, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        throw new StorageException(file + " is held by another running process");
      }
      return new OwnerLock(key, channel, lock);
    } catch (IOException | RuntimeException e) {
      HELD_HERE.remove(key);
      closeQuietly(channel);
      if (e instanceof StorageException se) {
        throw se;
      }
      throw new StorageException("cannot lock " + file + ": " + IoErrors.reason(e), e);
    }
  }

  /** Whether {@code file} is locked by a live process (this one included); false if it does not exist. */
  public static boolean isHeld(Path file) {
    Path key = file.toAbsolutePath().normalize();
    if (HELD_HERE.contains(key)) {
      return true;
    }
    if (!Files.isRegularFile(key)) {
      return false;
    }
    try (FileChannel channel = FileChannel.open(key, StandardOpenOption.WRITE)) {
      FileLock lock = channel.tryLock();
      if (lock == null) {
        return true;
      }
      lock.release();
      return false;
    } catch (OverlappingFileLockException e) {
      return true;
    } catch (IOException e) {
      return true;  // cannot tell: assume alive rather than delete someone's work
    }
  }

  /** Releases the lock and deletes the file. */
  public void close() {
    release(file);
  }

  /** Releases the lock and deletes the file, which now lives at {@code movedTo} (its directory was renamed). */
  void release(Path movedTo) {
    try {
      lock.release();
    } catch (IOException e) {
      // closing the channel below releases it as well
    } finally {
      closeQuietly(channel);
      HELD_HERE.remove(file);
    }
    try {
      Files.deleteIfExists(movedTo);
    } catch (IOException e) {
      throw new StorageException("cannot delete " + movedTo + ": " + IoErrors.reason(e), e);
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // nothing left to release
      }
    }
  }
}
