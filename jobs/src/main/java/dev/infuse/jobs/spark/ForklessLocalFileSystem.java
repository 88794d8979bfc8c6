package dev.infuse.jobs.spark;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFs;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.local.LocalConfigKeys;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system ({@code file:}) without a child process per call.
 *
 * <p>Without Hadoop's native library (which no Maven artifact ships), {@link RawLocalFileSystem}
 * runs {@code chmod} after creating every file or directory and {@code readlink} before every
 * rename through {@code FileContext}, which is how Delta commits on a local disk. Each is a fork of
 * the JVM: about 2,000 of them in four small ingest-to-score chains, on the driver's thread. This
 * does the same with {@code java.nio}. Set for {@code file:} by {@link SparkSessions} as {@code
 * fs.file.impl}, and {@link Fs} as {@code fs.AbstractFileSystem.file.impl}.
 */
public final class ForklessLocalFileSystem extends LocalFileSystem {
  public ForklessLocalFileSystem() {
    super(new Raw());
  }

  /** The raw (checksum-free) file system: {@link RawLocalFileSystem} with the two calls in NIO. */
  public static final class Raw extends RawLocalFileSystem {
    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
      Set<PosixFilePermission> posix = posix(permission);
      if (posix == null) {
        super.setPermission(path, permission);
        return;
      }
      try {
        Files.setPosixFilePermissions(pathToFile(path).toPath(), posix);
      } catch (UnsupportedOperationException notPosix) {
        super.setPermission(path, permission);
      }
    }

    /** A path that is not a symbolic link has the status of the file itself. */
    @Override
    public FileStatus getFileLinkStatus(Path path) throws IOException {
      if (!Files.isSymbolicLink(pathToFile(path).toPath())) {
        return getFileStatus(path);
      }
      return super.getFileLinkStatus(path);
    }
  }

  /**
   * The same for {@code FileContext} (Delta's log store on {@code file:}), as Hadoop's {@code
   * LocalFs} over {@code RawLocalFs}.
   */
  public static final class Fs extends ChecksumFs {
    public Fs(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(new RawFs(uri, conf));
    }
  }

  private static final class RawFs extends DelegateToFileSystem {
    RawFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(uri, new Raw(), conf, "file", false);
    }

    @Override
    public int getUriDefaultPort() {
      return -1;
    }

    @Override
    public FsServerDefaults getServerDefaults(Path path) throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    @SuppressWarnings("deprecation")
    public FsServerDefaults getServerDefaults() throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    public boolean isValidName(String src) {
      return true;
    }
  }

  /** rwx bits for user, group and others; null for what NIO cannot set (the sticky bit). */
  private static Set<PosixFilePermission> posix(FsPermission permission) {
    if (permission.getStickyBit()) {
      return null;
    }
    Set<PosixFilePermission> result = EnumSet.noneOf(PosixFilePermission.class);
    add(
        result,
        permission.getUserAction(),
        PosixFilePermission.OWNER_READ,
        PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_EXECUTE);
    add(
        result,
        permission.getGroupAction(),
        PosixFilePermission.GROUP_READ,
        PosixFilePermission.GROUP_WRITE,
        PosixFilePermission.GROUP_EXECUTE);
    add(
        result,
        permission.getOtherAction(),
        PosixFilePermission.OTHERS_READ,
        PosixFilePermission.OTHERS_WRITE,
        PosixFilePermission.OTHERS_EXECUTE);
    return result;
  }

  private static void add(
      Set<PosixFilePermission> result,
      FsAction action,
      PosixFilePermission read,
      PosixFilePermission write,
      PosixFilePermission execute) {
    if (action.implies(FsAction.READ)) {
      result.add(read);
    }
    if (action.implies(FsAction.WRITE)) {
      result.add(write);
    }
    if (action.implies(FsAction.EXECUTE)) {
      result.add(execute);
    }
  }
}
