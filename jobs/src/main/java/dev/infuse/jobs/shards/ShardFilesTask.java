package dev.infuse.jobs.shards;

import dev.infuse.udfs.pack.TokenPacker;
import dev.infuse.udfs.pack.TokenizedText;
import dev.infuse.udfs.shards.JsonlShardWriter;
import dev.infuse.udfs.shards.MegatronIndexedDatasetWriter;
import dev.infuse.udfs.shards.ShardFile;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.util.SerializableConfiguration;
import scala.Tuple2;

/**
 * Writes one shard in every selected format from its partition of the sample, already in shard
 * order: the Parquet file gets the packed (or padded) sequences, the JSONL file one text per line,
 * the Megatron pair one document per text (its tokens and EOS; Megatron packs at training time).
 * Everything streams: one packed sequence is in memory at a time. Returns what it wrote, per
 * format.
 */
final class ShardFilesTask
    implements Function2<
        Integer, Iterator<Tuple2<ShardOrder, ShardText>>, Iterator<ShardFilesTask.Written>> {
  private static final long serialVersionUID = 1L;

  /**
   * One shard of one format, as written.
   *
   * @param files the file(s): one, or Megatron's .bin and .idx
   * @param sequences Parquet sequences, JSONL lines or Megatron sequences
   * @param documents training texts (repetitions counted)
   * @param tokens text tokens plus one EOS separator per text; padding excluded
   * @param composition {@code tokens} by source
   */
  record Written(
      ShardFormat format,
      int shard,
      List<WrittenFile> files,
      long sequences,
      long documents,
      long tokens,
      long paddingTokens,
      Map<String, Long> composition)
      implements Serializable {}

  /**
   * A published file: its name in the format's directory, size and SHA-256 (a Path does not
   * serialize).
   */
  record WrittenFile(String name, long bytes, String sha256) implements Serializable {}

  /**
   * What every shard task needs to know.
   *
   * @param vocabSize the tokenizer's vocabulary size (Megatron's dtype); eosId and padId are its
   *     ids
   */
  record Spec(
      ShardOutput output,
      List<ShardFormat> formats,
      int shards,
      int sequenceLength,
      boolean pack,
      int vocabSize,
      int eosId,
      int padId)
      implements Serializable {}

  private final Spec spec;

  /** The session's Hadoop configuration, for the upload to a remote output. */
  private final Broadcast<SerializableConfiguration> hadoop;

  ShardFilesTask(Spec spec, Broadcast<SerializableConfiguration> hadoop) {
    this.spec = spec;
    this.hadoop = hadoop;
  }

  @Override
  public Iterator<Written> call(Integer shard, Iterator<Tuple2<ShardOrder, ShardText>> rows) {
    Path scratch = spec.output().scratch();
    List<Closeable> open = new ArrayList<>();
    try {
      ParquetShardWriter parquet = null;
      JsonlShardWriter jsonl = null;
      MegatronIndexedDatasetWriter megatron = null;
      if (spec.formats().contains(ShardFormat.PARQUET)) {
        parquet =
            new ParquetShardWriter(file(ShardFormat.PARQUET, "parquet", shard, scratch), shard);
        open.add(parquet::close);
      }
      if (spec.formats().contains(ShardFormat.JSONL)) {
        jsonl = new JsonlShardWriter(file(ShardFormat.JSONL, "jsonl", shard, scratch));
        open.add(jsonl::close);
      }
      if (spec.formats().contains(ShardFormat.MEGATRON)) {
        megatron =
            new MegatronIndexedDatasetWriter(
                file(ShardFormat.MEGATRON, "", shard, scratch), spec.vocabSize());
        open.add(megatron::close);
      }
      ParquetShardWriter parquetSink = parquet;
      TokenPacker packer = new TokenPacker(spec.sequenceLength(), spec.eosId(), spec.padId());
      Map<String, Long> composition = new TreeMap<>();
      long documents = 0;
      long tokens = 0;
      try (TokenPacker.Stream packing =
          packer.stream(
              spec.pack(),
              (sequence, padding) -> {
                if (parquetSink != null) {
                  parquetSink.write(sequence, padding);
                }
              })) {
        while (rows.hasNext()) {
          Tuple2<ShardOrder, ShardText> next = rows.next();
          ShardOrder order = next._1();
          int[] ids = next._2().ids();
          packing.add(
              new TokenizedText(order.source(), order.rowId(), ids, next._2().answerMask()));
          if (jsonl != null) {
            jsonl.write(documentId(order), order.source(), next._2().text());
          }
          if (megatron != null) {
            int[] document = Arrays.copyOf(ids, ids.length + 1);
            document[ids.length] = spec.eosId();
            megatron.addDocument(document);
          }
          documents++;
          tokens += ids.length + 1;
          composition.merge(order.source(), (long) ids.length + 1, Long::sum);
        }
        packing.close();
        List<Written> written = new ArrayList<>();
        if (parquet != null) {
          ShardFile file = parquet.commit();
          publish(ShardFormat.PARQUET, file);
          written.add(
              result(
                  ShardFormat.PARQUET,
                  shard,
                  List.of(file),
                  packing.sequences(),
                  documents,
                  tokens,
                  packing.paddingTokens(),
                  composition));
        }
        if (jsonl != null) {
          ShardFile file = jsonl.commit();
          publish(ShardFormat.JSONL, file);
          written.add(
              result(
                  ShardFormat.JSONL,
                  shard,
                  List.of(file),
                  documents,
                  documents,
                  tokens,
                  0,
                  composition));
        }
        if (megatron != null) {
          MegatronIndexedDatasetWriter.Written files = megatron.commit();
          publish(ShardFormat.MEGATRON, files.bin());
          publish(ShardFormat.MEGATRON, files.idx());
          written.add(
              result(
                  ShardFormat.MEGATRON,
                  shard,
                  List.of(files.bin(), files.idx()),
                  files.sequences(),
                  files.documents(),
                  files.tokens(),
                  0,
                  composition));
        }
        return written.iterator();
      }
    } finally {
      // After a commit these do nothing; on a failure they delete the temporary files.
      open.forEach(Closeable::close);
      deleteScratch(scratch);
    }
  }

  /**
   * A JSONL record's id: the row's source and id, and its repetition when the mixture repeats it.
   */
  static String documentId(ShardOrder order) {
    return order.source()
        + "/"
        + order.rowId()
        + (order.repetition() == 0 ? "" : "#" + order.repetition());
  }

  private Path file(ShardFormat format, String extension, int shard, Path scratch) {
    return spec.output()
        .localFile(format, ShardOutput.shardName(shard, spec.shards(), extension), scratch);
  }

  private void publish(ShardFormat format, ShardFile file) {
    spec.output().publish(format, file.path(), hadoop.value().value());
  }

  private static Written result(
      ShardFormat format,
      int shard,
      List<ShardFile> files,
      long sequences,
      long documents,
      long tokens,
      long padding,
      Map<String, Long> composition) {
    List<WrittenFile> described =
        files.stream()
            .map(f -> new WrittenFile(f.path().getFileName().toString(), f.bytes(), f.sha256()))
            .toList();
    return new Written(
        format,
        shard,
        described,
        sequences,
        documents,
        tokens,
        padding,
        new TreeMap<>(composition));
  }

  private static void deleteScratch(Path scratch) {
    if (scratch == null) {
      return;
    }
    try (var files = Files.walk(scratch)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete scratch directory " + scratch, e);
    }
  }

  /** A close that throws nothing, for the cleanup list. */
  private interface Closeable {
    void close();
  }
}
