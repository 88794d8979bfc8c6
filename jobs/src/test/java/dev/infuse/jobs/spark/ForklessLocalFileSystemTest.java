package dev.infuse.jobs.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.jobs.SparkTestSession;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;

/**
 * {@link ForklessLocalFileSystem} behaves as Hadoop's local file system where Delta and Parquet use
 * it (permissions on create, FileContext's rename without overwrite, links), and the sessions
 * Infuse starts on a local master use it.
 */
class ForklessLocalFileSystemTest {
  private final java.nio.file.Path dir = SparkTestSession.tempDir("forkless-fs");

  private static Configuration conf() {
    Configuration conf = new Configuration(false);
    SparkSessions.LOCAL_FILE_SYSTEM_CONF.forEach(
        (key, value) -> conf.set(key.substring("spark.hadoop.".length()), value));
    conf.set("fs.permissions.umask-mode", "022");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }

  @Test
  void theTestSessionsHadoopConfigurationNamesIt() throws IOException {
    Configuration hadoop = SparkTestSession.get().sparkContext().hadoopConfiguration();
    Path path = new Path(dir.toUri());
    assertThat(path.getFileSystem(hadoop)).isInstanceOf(ForklessLocalFileSystem.class);
    assertThat(FileContext.getFileContext(path.toUri(), hadoop).getDefaultFileSystem())
        .isInstanceOf(ForklessLocalFileSystem.Fs.class);
  }

  @Test
  void createdFilesAndDirectoriesGetTheModeLessTheUmask() throws IOException {
    FileSystem fs = FileSystem.get(dir.toUri(), conf());
    Path file = new Path(dir.toUri().toString(), "sub/part-0.parquet");
    try (OutputStream out =
        fs.create(file, FsPermission.getFileDefault(), true, 4096, (short) 1, 1 << 20, null)) {
      out.write("rows".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("sub/part-0.parquet"))))
        .isEqualTo("rw-r--r--");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("sub"))))
        .isEqualTo("rwxr-xr-x");
    // The checksum file system writes its .crc beside the data, as Hadoop's does.
    assertThat(dir.resolve("sub/.part-0.parquet.crc")).exists();

    fs.setPermission(file, new FsPermission((short) 0600));
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("sub/part-0.parquet"))))
        .isEqualTo("rw-------");
    assertThat(fs.getFileStatus(file).getPermission().toShort()).isEqualTo((short) 0600);
  }

  @Test
  void fileContextRenamesWithoutOverwriteAsDeltaCommitsDo() throws IOException {
    FileContext context = FileContext.getFileContext(dir.toUri(), conf());
    Path temp = new Path(dir.toUri().toString(), "_delta_log/.00000.json.tmp");
    Path commit = new Path(dir.toUri().toString(), "_delta_log/00000.json");
    write(context, temp, "{\"commitInfo\":{}}");
    context.rename(temp, commit, Options.Rename.NONE);
    assertThat(Files.readString(dir.resolve("_delta_log/00000.json")))
        .isEqualTo("{\"commitInfo\":{}}");

    // A second writer of the same version must lose, not overwrite: that is Delta's mutual
    // exclusion on a file system.
    write(context, temp, "{\"other\":{}}");
    assertThatThrownBy(() -> context.rename(temp, commit, Options.Rename.NONE))
        .isInstanceOf(org.apache.hadoop.fs.FileAlreadyExistsException.class);
    assertThat(Files.readString(dir.resolve("_delta_log/00000.json")))
        .isEqualTo("{\"commitInfo\":{}}");
  }

  @Test
  void linkStatusIsHadoopsOwnForLinksFilesAndMissingPaths() throws IOException {
    Files.writeString(dir.resolve("target.txt"), "x");
    Files.createSymbolicLink(dir.resolve("link.txt"), dir.resolve("target.txt"));
    FileSystem ours = FileSystem.get(dir.toUri(), conf());
    // A new instance: the cached one is the session's, and must stay so for the other tests.
    FileSystem hadoops = FileSystem.newInstanceLocal(new Configuration(false));
    for (String name : new String[] {"link.txt", "target.txt"}) {
      Path path = new Path(dir.resolve(name).toUri());
      FileStatus expected = hadoops.getFileLinkStatus(path);
      FileStatus got = ours.getFileLinkStatus(path);
      assertThat(got.getPath()).as(name).isEqualTo(expected.getPath());
      assertThat(got.isSymlink()).as(name).isEqualTo(expected.isSymlink());
      assertThat(got.isFile()).as(name).isEqualTo(expected.isFile());
      assertThat(got.getLen()).as(name).isEqualTo(expected.getLen()).isEqualTo(1);
    }
    Path missing = new Path(dir.resolve("missing").toUri());
    assertThatThrownBy(() -> hadoops.getFileLinkStatus(missing))
        .isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> ours.getFileLinkStatus(missing))
        .isInstanceOf(FileNotFoundException.class);
  }

  private static void write(FileContext context, Path path, String text) throws IOException {
    try (OutputStream out =
        context.create(
            path,
            EnumSet.of(CreateFlag.CREATE, CreateFlag.OVERWRITE),
            Options.CreateOpts.createParent())) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }
}
