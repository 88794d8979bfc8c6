package dev.infuse.jobs.train;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;

import ai.djl.Device;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobFailedException;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.jobs.shards.ShardBuildInfo;
import dev.infuse.jobs.shards.SyntheticTokenCounts;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.lm.CausalLm;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.LmConfig;
import dev.infuse.udfs.lm.ModelDirectory;
import dev.infuse.udfs.lm.train.Checkpoints;
import dev.infuse.udfs.lm.train.PackedSequence;
import dev.infuse.udfs.lm.train.SequenceSource;
import dev.infuse.udfs.lm.train.Trainer;
import dev.infuse.udfs.lm.train.TrainingConfig;
import dev.infuse.udfs.lm.train.TrainingResult;
import dev.infuse.udfs.mix.QaTemplate;
import dev.infuse.udfs.model.Devices;
import dev.infuse.udfs.pack.TokenPacker;
import dev.infuse.udfs.pack.TokenizedText;
import dev.infuse.udfs.text.TokenizerVocab;
import dev.infuse.udfs.text.Tokenizers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code train}: trains a causal LM on text in the warehouse (or on packed token shards) in this
 * JVM, on its GPU when it has one. Texts are tokenized on the executors and packed here; the model,
 * its checkpoints and a {@code train_info.json} go to {@code train.model_dir}, and every step's
 * loss, learning rate and throughput to {@code train_metrics}.
 *
 * <p>A rerun with the same config and data resumes from the last checkpoint; a rerun with a
 * different one into the same model directory is refused rather than mixing two trainings.
 */
public final class TrainJob {
  public static final String NAME = "train";

  /** train_info.json: every key sorted, records (the shard build's mixture) in snake_case. */
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .enable(com.fasterxml.jackson.databind.MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
          .setPropertyNamingStrategy(
              com.fasterxml.jackson.databind.PropertyNamingStrategies.SNAKE_CASE);

  private static final String FINGERPRINT_FILE = "TRAINING";

  private final JobRun run;
  private final TrainConfig options;

  public TrainJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(TrainConfig.class);
  }

  public RunCounts run() {
    Path modelDir = modelDir(run.config().warehouse(), options.modelDir());
    Path initFrom =
        options.initFrom() == null ? null : modelDir(run.config().warehouse(), options.initFrom());
    Device device = Devices.resolve(options.device(), "PyTorch");
    byte[] tokenizerJson =
        initFrom != null
            ? readFile(initFrom.resolve(ModelDirectory.TOKENIZER), "train.init_from")
            : tokenizerBytes(options.tokenizer());
    TokenizerVocab vocab = TokenizerVocab.of(tokenizerJson);
    int eos = vocab.eosId();
    int pad = vocab.padId();

    // Staged shard files and cached rows are released however the training ends.
    try (TrainingSet data =
        options.shards() != null ? fromShards(vocab.size()) : fromTables(tokenizerJson, eos, pad)) {
      WriteResult quarantined = run.quarantine(data.failures());
      Map<String, Long> details = new LinkedHashMap<>(data.details());
      details.put("quarantine.inserted", quarantined.inserted());
      RunCounts counts =
          new RunCounts(data.read(), data.read() - data.failed(), data.failed(), details);
      if (data.sequences().isEmpty()) {
        throw new JobFailedException(
            "train: no training sequence from "
                + describeInput()
                + " (read "
                + data.read()
                + " rows, quarantined "
                + data.failed()
                + ")",
            counts);
      }

      // The data order is drawn from the run seed, like every other sample.
      TrainingConfig training = options.training().withSeed(run.config().run().seed());
      List<String> problems = training.problems().stream().map(p -> "train." + p).toList();
      if (!problems.isEmpty()) {
        throw new ConfigException(problems);
      }

      try (DecoderLm model = model(initFrom, tokenizerJson, vocab.size(), eos, pad, device)) {
        String fingerprint = fingerprint(model.config(), training, tokenizerJson, data.sequences());
        // Beside the model, not inside it: saving the final model replaces its directory whole.
        Path checkpoints = modelDir.resolveSibling(modelDir.getFileName() + ".checkpoints");
        claim(checkpoints, fingerprint);
        TrainMetricsSink sink =
            new TrainMetricsSink(
                run.spark(),
                run.warehouse(),
                run.runId(),
                modelDir.toString(),
                model.device().toString(),
                run.out(),
                Math.max(1, options.training().steps() / 10));
        var out = run.out();
        out.printf(
            Locale.ROOT,
            "train: %d sequence(s) of %d tokens (%d target tokens) from %s on %s%n",
            data.sequences().size(),
            options.sequenceLength(),
            details.get("target_tokens"),
            describeInput(),
            model.device());
        out.printf(
            Locale.ROOT,
            "  model %s: %d layers, d_model %d, %d heads, vocab %d%n",
            modelDir,
            model.config().layers(),
            model.config().dModel(),
            model.config().heads(),
            model.config().vocabSize());
        out.flush();

        TrainingResult result = Trainer.train(model, data.sequences(), training, checkpoints, sink);
        sink.flush();
        ModelDirectory.save(model, modelDir);
        writeInfo(modelDir, fingerprint, result, details, tokenizerJson);

        details.put("steps", (long) result.finalStep());
        details.put("resumed_from_step", (long) result.resumedFromStep());
        details.put("train_metrics.rows", sink.written());
        out.printf(
            Locale.ROOT,
            "  %s at step %d, final loss %.4f; model written to %s%n",
            result.resumedFromStep() >= 0
                ? "resumed from step " + result.resumedFromStep() + ", finished"
                : "finished",
            result.finalStep(),
            result.finalLoss(),
            modelDir);
        out.printf(
            Locale.ROOT,
            "  %d row(s) trained on, %d quarantined%n",
            counts.output(),
            counts.quarantined());
        out.flush();
        return new RunCounts(counts.input(), counts.output(), counts.quarantined(), details);
      }
    }
  }

  /**
   * What was read, what failed, and the packed sequences; closing releases what holds them (staged
   * files, cached rows), after the failures are quarantined.
   */
  private record TrainingSet(
      long read,
      long failed,
      Dataset<Row> failures,
      SequenceSource sequences,
      Map<String, Long> details,
      AutoCloseable resources)
      implements AutoCloseable {
    @Override
    public void close() {
      try {
        resources.close();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException("train: cannot release the training data: " + e, e);
      }
    }
  }

  private TrainingSet fromTables(byte[] tokenizerJson, int eos, int pad) {
    Dataset<Row> tokenized =
        TrainingData.tokenize(
                run.spark(),
                TrainingData.texts(run.warehouse(), options),
                tokenizerJson,
                options.lossOn() == TrainConfig.LossOn.ANSWER)
            .persist(StorageLevel.MEMORY_AND_DISK());
    List<TokenizedText> texts = new ArrayList<>();
    long tokens = 0;
    for (Row row :
        tokenized
            .filter(col("reason").isNull())
            .select("source", "row_id", "ids", "loss_mask")
            .collectAsList()) {
      int[] ids = ints(row.getList(2));
      int[] mask = row.isNullAt(3) ? null : ints(row.getList(3));
      texts.add(new TokenizedText(row.getString(0), row.getString(1), ids, mask));
      tokens += ids.length;
    }
    Dataset<Row> failures =
        Quarantine.deadLetters(
            tokenized.filter(col("reason").isNotNull()),
            col("source"),
            concat(lit("row_id="), col("row_id")),
            col("row_id"),
            col("reason"));
    long failed = failures.count();
    List<PackedSequence> sequences =
        new TokenPacker(options.sequenceLength(), eos, pad).pack(texts);
    Map<String, Long> details = new LinkedHashMap<>();
    details.put("texts", (long) texts.size());
    details.put("text_tokens", tokens);
    details.put("sequences", (long) sequences.size());
    details.put("target_tokens", targetTokens(sequences));
    // Texts are packed in memory: the tables path is for small data; large data goes through
    // build-shards and train.shards, which stream.
    return new TrainingSet(
        texts.size() + failed,
        failed,
        failures,
        SequenceSource.of(sequences),
        details,
        tokenized::unpersist);
  }

  /**
   * Packed shards as written by build-shards: {@code input_ids} and optionally {@code
   * document_lengths} and {@code loss_mask}. A row that does not fit this model (wrong length, ids
   * outside the vocabulary, lengths that do not add up) is quarantined with the reason. The rows
   * stream to a local staging file ({@link ShardSequences}), never all onto the driver's heap.
   */
  private TrainingSet fromShards(int vocabSize) {
    String directory = shardDirectory();
    Dataset<Row> shards;
    try {
      shards = run.spark().read().parquet(directory);
    } catch (RuntimeException e) {
      throw new ConfigException(
          List.of(
              "train.shards: got "
                  + options.shards()
                  + ", expected a directory of Parquet"
                  + " shards with an input_ids column ("
                  + e.getMessage().lines().findFirst().orElse("")
                  + ")"));
    }
    List<String> columns = List.of(shards.columns());
    if (!columns.contains("input_ids")) {
      throw new ConfigException(
          List.of(
              "train.shards: "
                  + options.shards()
                  + " has columns "
                  + columns
                  + ", expected input_ids (and optionally document_lengths, loss_mask)"));
    }
    // build-shards numbers its sequences: train on them in shard order, whatever order the files
    // list in.
    if (columns.contains("shard") && columns.contains("sequence")) {
      shards = ShardSequences.inShardOrder(run.spark(), shards);
    }
    // loss_mask excludes padding only; answer_mask also excludes the questions of QA pairs.
    String maskColumn =
        options.lossOn() == TrainConfig.LossOn.ANSWER && columns.contains("answer_mask")
            ? "answer_mask"
            : "loss_mask";
    ShardSequences staged =
        ShardSequences.stage(run.spark(), shards, maskColumn, options.sequenceLength(), vocabSize);
    Map<String, Long> details = new LinkedHashMap<>();
    details.put("sequences", (long) staged.sequences().size());
    details.put("target_tokens", staged.targetTokens());
    return new TrainingSet(
        staged.read(), staged.failed(), staged.failures(), staged.sequences(), details, staged);
  }

  /**
   * The Parquet directory train.shards names: a build-shards output (info.json, COMPLETED,
   * parquet/), which must be complete, or any directory of Parquet token rows.
   */
  private String shardDirectory() {
    org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(options.shards());
    try {
      org.apache.hadoop.fs.FileSystem fs =
          root.getFileSystem(run.spark().sparkContext().hadoopConfiguration());
      if (!fs.exists(new org.apache.hadoop.fs.Path(root, ShardBuildInfo.FILE))) {
        return options.shards();
      }
      if (!fs.exists(new org.apache.hadoop.fs.Path(root, "COMPLETED"))) {
        throw new ConfigException(
            List.of(
                "train.shards: "
                    + root
                    + " has an info.json but no COMPLETED marker: its"
                    + " build-shards run has not finished; expected a finished build (rerun build-shards)"));
      }
      ShardBuildInfo info = shardBuildInfo();
      int length = info == null ? 0 : info.sequenceLength();
      if (length > 0 && length != options.sequenceLength()) {
        throw new ConfigException(
            List.of(
                "train.sequence_length: got "
                    + options.sequenceLength()
                    + ", but the shards"
                    + " at "
                    + root
                    + " were cut to "
                    + length
                    + " tokens; expected the same length: --set"
                    + " train.sequence_length="
                    + length
                    + " (with context_length >= it), or rebuild them with"
                    + " --sequence-length "
                    + options.sequenceLength()));
      }
      org.apache.hadoop.fs.Path parquet = new org.apache.hadoop.fs.Path(root, "parquet");
      if (!fs.exists(parquet)) {
        throw new ConfigException(
            List.of(
                "train.shards: "
                    + root
                    + " was built without the parquet format; expected"
                    + " a build with shards.formats including parquet"));
      }
      return parquet.toString();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + root, e);
    }
  }

  /**
   * The shard build's info.json (composition, synthetic_tokens, mixture), when train.shards has
   * one.
   */
  private ShardBuildInfo shardBuildInfo() {
    return options.shards() == null
        ? null
        : ShardBuildInfo.read(options.shards(), run.spark().sparkContext().hadoopConfiguration());
  }

  private DecoderLm model(
      Path initFrom, byte[] tokenizerJson, int vocabSize, int eos, int pad, Device device) {
    if (initFrom != null) {
      CausalLm loaded = ModelDirectory.load(initFrom.toAbsolutePath(), device);
      if (loaded instanceof DecoderLm decoder) {
        return decoder;
      }
      loaded.close();
      throw new ConfigException(
          List.of(
              "train.init_from: "
                  + initFrom
                  + " is a "
                  + loaded.config().architecture()
                  + " model, expected an "
                  + LmConfig.INFUSE_DECODER
                  + " model written by train"));
    }
    LmConfig config =
        new LmConfig(
            LmConfig.INFUSE_DECODER,
            vocabSize,
            options.layers(),
            options.dModel(),
            options.heads(),
            options.contextLength(),
            4,
            eos,
            pad);
    List<String> problems = config.problems().stream().map(p -> "train." + p).toList();
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return DecoderLm.create(config, tokenizerJson, device, run.config().run().seed());
  }

  /**
   * The identity of a training: model shape, optimiser settings, tokenizer and the exact token
   * data. Checkpoints of another training in the same directory must never be resumed from.
   */
  private static String fingerprint(
      LmConfig model, TrainingConfig training, byte[] tokenizerJson, SequenceSource sequences) {
    MessageDigest digest = Keys.newSha256();
    digest.update(model.toString().getBytes(StandardCharsets.UTF_8));
    // checkpoint_every changes when state is saved, not what is learned.
    digest.update(
        training
            .toString()
            .replaceAll("checkpointEvery=\\d+", "")
            .getBytes(StandardCharsets.UTF_8));
    digest.update(Keys.sha256(tokenizerJson));
    ByteBuffer buffer = ByteBuffer.allocate(4);
    // One pass over the rows, from disk for shards.
    for (int i = 0; i < sequences.size(); i++) {
      PackedSequence s = sequences.get(i);
      for (int[] part :
          new int[][] {
            s.inputIds(), s.documentLengths(), s.lossMask() == null ? new int[0] : s.lossMask()
          }) {
        for (int v : part) {
          buffer.clear();
          digest.update(buffer.putInt(v).array());
        }
      }
      digest.update((byte) 0x1f);
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  /**
   * Marks the checkpoint directory as this training's, or refuses one whose checkpoints belong to
   * another. A directory without a complete checkpoint (a run that died before its first) is taken
   * over.
   */
  private static void claim(Path checkpoints, String fingerprint) {
    try {
      Files.createDirectories(checkpoints);
      Path file = checkpoints.resolve(FINGERPRINT_FILE);
      String existing = Files.exists(file) ? Files.readString(file).trim() : "unknown";
      if (Checkpoints.latest(checkpoints).isPresent() && !existing.equals(fingerprint)) {
        throw new ConfigException(
            List.of(
                "train.model_dir: "
                    + checkpoints
                    + " holds checkpoints of another"
                    + " training (model, optimiser settings, tokenizer or data differ: "
                    + abbreviate(existing)
                    + " vs "
                    + abbreviate(fingerprint)
                    + "); expected a new model_dir, or delete that directory to start over"));
      }
      Files.writeString(file, fingerprint + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + checkpoints, e);
    }
  }

  private static String abbreviate(String fingerprint) {
    return fingerprint.length() <= 12 ? fingerprint : fingerprint.substring(0, 12);
  }

  private void writeInfo(
      Path modelDir,
      String fingerprint,
      TrainingResult result,
      Map<String, Long> details,
      byte[] tokenizerJson) {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("run_id", run.runId());
    info.put("training_fingerprint", fingerprint);
    info.put("final_step", result.finalStep());
    info.put("final_loss", result.finalLoss());
    info.put("resumed_from_step", result.resumedFromStep());
    info.put("input", describeInput());
    info.put("qa_template", QaTemplate.ID);
    info.put("loss_on", options.lossOn());
    info.put("data", details);
    ShardBuildInfo shardInfo = shardBuildInfo();
    if (shardInfo != null) {
      // What evaluation's scaling fit reads: how much synthetic data this model saw. The legacy
      // count (shard tokenizer, EOS and repetitions included), and, from builds that record them,
      // the unique and seen counts in the build's count tokenizer with the generators behind them.
      info.put("synthetic_tokens", shardInfo.syntheticTokens());
      SyntheticTokenCounts counts = shardInfo.syntheticTokenCounts();
      if (counts != null) {
        info.put("synthetic_token_counts", counts);
        info.put("generator", counts.generator());
        boolean same =
            counts.tokenizerSha256().equals(HexFormat.of().formatHex(Keys.sha256(tokenizerJson)));
        info.put("count_tokenizer_is_model_tokenizer", same);
        if (!same) {
          run.out()
              .println(
                  "  note: the shards count synthetic tokens in "
                      + counts.tokenizer()
                      + ", not this model's tokenizer; the papers count in the trained model's"
                      + " (rebuild with --set shards.count_tokenizer=<its tokenizer.json>)");
        }
      }
      info.put("shard_composition", shardInfo.composition());
      info.put("shard_config_hash", shardInfo.configHash());
      info.put("mixture", shardInfo.mixture());
    }
    try {
      Path tmp = modelDir.resolve("train_info.json.tmp");
      JSON.writeValue(tmp.toFile(), info);
      Files.move(
          tmp,
          modelDir.resolve("train_info.json"),
          StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write train_info.json in " + modelDir, e);
    }
  }

  private String describeInput() {
    return options.shards() != null
        ? "shards " + options.shards()
        : String.join(", ", options.sources())
            + (options.corpus() == null ? "" : " (corpus " + options.corpus() + ")");
  }

  private static long targetTokens(List<PackedSequence> sequences) {
    long targets = 0;
    for (PackedSequence s : sequences) {
      targets += s.lossMask() == null ? s.inputIds().length : IntStream.of(s.lossMask()).sum();
    }
    return targets;
  }

  private static int[] ints(List<Integer> values) {
    return values.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * A model directory is a local path (on Databricks, a FUSE path such as /dbfs/… or /Volumes/…):
   * DJL and the checkpoint writer need a POSIX file system. A relative one lives under a local
   * warehouse.
   */
  public static Path modelDir(String warehouse, String dir) {
    Path path = Path.of(dir);
    if (path.isAbsolute()) {
      return path;
    }
    URI uri = URI.create(warehouse.replace('\\', '/'));
    if (Warehouse.isSchema(warehouse)
        || uri.getScheme() != null && !uri.getScheme().equals("file")) {
      throw new ConfigException(
          List.of(
              "train.model_dir: got the relative path "
                  + dir
                  + " with the warehouse "
                  + warehouse
                  + ", expected an absolute local or FUSE path (for example /dbfs/models/tiny) when the warehouse is remote or a metastore schema"));
    }
    Path root = uri.getScheme() == null ? Path.of(warehouse) : Path.of(uri);
    return root.resolve(path).toAbsolutePath().normalize();
  }

  private static byte[] tokenizerBytes(String spec) {
    if (Tokenizers.DEFAULT_SPEC.equals(spec)) {
      return Tokenizers.defaultTokenizerJson();
    }
    Path path = Path.of(spec);
    return readFile(
        Files.isDirectory(path) ? path.resolve("tokenizer.json") : path, "train.tokenizer");
  }

  private static byte[] readFile(Path file, String option) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigException(
          List.of(option + ": no file at " + file + ", expected a HuggingFace tokenizer.json"));
    }
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
