package dev.infuse.jobs.behavior;

import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.io.TokenizerFiles;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.llm.LlmFailures;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.sft.BehaviorTokens;
import dev.infuse.udfs.behavior.sft.SftExamples;
import dev.infuse.udfs.behavior.sft.SftRewrite;
import dev.infuse.udfs.behavior.sft.SftTargets;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.text.TextTokenizer;
import dev.infuse.udfs.text.TokenizerVocab;
import dev.infuse.udfs.text.Tokenizers;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code sft-data}: BehaviorSFT's supervised examples from {@code behavior_tasks}. Each target
 * starts with the behavioural token of the task's gold behaviour ({@code behavior.tokens}), then
 * the gold target in words. Writes chat-format JSON Lines ({@code messages}) for external SFT
 * trainers under {@code behavior.sft.output}: {@code train.jsonl}, and {@code heldout.jsonl} with
 * the tasks a hash of task_id keeps apart ({@code behavior.sft.held_out_fraction}), so that a
 * trained model can be tested on tasks it never saw. Files are streamed from the executors'
 * partitions one at a time and written whole, then renamed into place. The training examples also
 * go to {@code parquet/}, tokenized for the DJL {@code train} job with an answer mask on the
 * target, so that {@code train --loss-on answer} fine-tunes on the responses alone. With {@code
 * behavior.sft.rewrite=llm} the target texts are first rewritten by the llm section's model ({@link
 * SftRewriting}, a Spark job through the client layer, joined by task_id); each line's {@code
 * target_source} says whether it holds the template text or the rewrite.
 */
public final class SftDataJob {
  public static final String NAME = "sft-data";
  static final String TRAIN_FILE = "train.jsonl";
  static final String HELD_OUT_FILE = "heldout.jsonl";
  static final String PARQUET_DIR = "parquet";

  /** The train job's input: one padded sequence per training example. */
  static final StructType SEQUENCES =
      new StructType()
          .add("task_id", DataTypes.StringType, false)
          .add("behavior", DataTypes.StringType, false)
          .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType, false), false)
          .add("loss_mask", DataTypes.createArrayType(DataTypes.IntegerType, false), false)
          .add("answer_mask", DataTypes.createArrayType(DataTypes.IntegerType, false), false);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final JobRun run;
  private final BehaviorConfig options;

  public SftDataJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(BehaviorConfig.class);
  }

  /** Whether {@code taskId} is kept out of training: a stable hash below the fraction. */
  static boolean heldOut(String taskId, double fraction) {
    long bucket = Long.parseLong(Keys.sha256Hex("sft-held-out", taskId).substring(0, 8), 16);
    return bucket < fraction * 0x1_0000_0000L;
  }

  public RunCounts run() {
    if (!run.warehouse().exists(BehaviorConfig.TASKS)) {
      throw new IllegalArgumentException(
          "behavior_tasks: no such table, expected `infuse build-behavior-tasks` before sft-data");
    }
    boolean llmRewrite = options.sft().rewrite() == BehaviorConfig.TargetRewrite.LLM;
    LlmConfig llm = run.config().section(LlmConfig.class);
    if (llmRewrite) {
      SftRewriting.checkBackend(llm);
    }
    BehaviorTokens tokens = tokens();
    SftExamples examples =
        new SftExamples(
            PromptLibrary.load(
                    run.spark().sparkContext().hadoopConfiguration(),
                    run.config().run().promptsDir())
                .get(BehaviorAnswerJob.PROMPT));
    Path directory = outputDirectory();
    Map<String, Long> counts = new LinkedHashMap<>();
    byte[] tokenizerJson =
        TokenizerFiles.read(run.spark(), options.sft().tokenizer(), "behavior.sft.tokenizer");
    TokenizerVocab vocab = TokenizerVocab.of(tokenizerJson);
    TextTokenizer tokenizer = Tokenizers.fromBytes(tokenizerJson);
    SftSequences sequences =
        new SftSequences(tokenizer, options.sft().sequenceLength(), vocab.eosId(), vocab.padId());
    List<Row> trainRows = new ArrayList<>();
    long truncated = 0;
    long train = 0;
    long heldOut = 0;
    Dataset<Row> tasks = run.warehouse().read(BehaviorConfig.TASKS);
    SftRewriting.Result rewrites = null;
    if (llmRewrite) {
      rewrites = new SftRewriting(run).rewrite(tasks, options.tokens());
      tasks =
          tasks.join(
              rewrites.targets(),
              tasks.col("task_id").equalTo(rewrites.targets().col("target_task_id")),
              "left");
    }
    try {
      FileSystem fs = directory.getFileSystem(run.spark().sparkContext().hadoopConfiguration());
      fs.mkdirs(directory);
      Path trainTmp = new Path(directory, "." + TRAIN_FILE + "." + run.runId());
      Path heldTmp = new Path(directory, "." + HELD_OUT_FILE + "." + run.runId());
      try (OutputStream trainOut = fs.create(trainTmp, true);
          OutputStream heldOutOut = fs.create(heldTmp, true)) {
        Iterator<Row> rows = tasks.orderBy(col("task_id")).toLocalIterator();
        while (rows.hasNext()) {
          Row row = rows.next();
          BehaviorTask task = TaskRows.fromRow(row);
          boolean held = heldOut(task.taskId(), options.sft().heldOutFraction());
          Target target =
              llmRewrite
                  ? new Target(
                      row.getAs("target_text"),
                      row.getAs("target_source"),
                      row.getAs("rewrite_fallback"))
                  : new Target(SftTargets.text(task), SftRewrite.TEMPLATE, null);
          List<ChatMessage> chat = examples.messages(task, tokens, target.text());
          byte[] line = line(chat, task, held, target);
          if (!held) {
            SftSequences.Sequence sequence = sequences.of(chat);
            truncated += sequence.truncated() ? 1 : 0;
            trainRows.add(
                RowFactory.create(
                    task.taskId(),
                    task.goldBehavior().id(),
                    ints(sequence.inputIds()),
                    ints(sequence.lossMask()),
                    ints(sequence.answerMask())));
          }
          (held ? heldOutOut : trainOut).write(line);
          if (held) {
            heldOut++;
          } else {
            train++;
          }
          counts.merge("examples." + task.goldBehavior().id(), 1L, Long::sum);
        }
      }
      replace(fs, trainTmp, new Path(directory, TRAIN_FILE));
      replace(fs, heldTmp, new Path(directory, HELD_OUT_FILE));
      run.spark()
          .createDataFrame(trainRows, SEQUENCES)
          .coalesce(1)
          .write()
          .mode("overwrite")
          .parquet(new Path(directory, PARQUET_DIR).toString());
    } catch (IOException e) {
      throw new UncheckedIOException("behavior.sft.output: cannot write " + directory, e);
    } finally {
      if (rewrites != null) {
        rewrites.targets().unpersist();
      }
    }
    run.out()
        .printf(
            Locale.ROOT,
            "sft-data: %d task(s) -> %d training and %d held-out example(s) in %s (%s, %s)%n",
            train + heldOut,
            train,
            heldOut,
            directory,
            TRAIN_FILE,
            HELD_OUT_FILE);
    counts.forEach((k, v) -> run.out().printf(Locale.ROOT, "  %-28s %6d%n", k, v));
    run.out()
        .printf(
            Locale.ROOT,
            "  %s/: %d training sequence(s) of %d tokens (%s), %d cut to fit; train --shards %s"
                + " --loss-on answer --set train.sequence_length=%d%n",
            PARQUET_DIR,
            trainRows.size(),
            options.sft().sequenceLength(),
            options.sft().tokenizer(),
            truncated,
            new Path(directory, PARQUET_DIR),
            options.sft().sequenceLength());
    counts.put("sft.truncated", truncated);
    counts.put("sft.train", train);
    counts.put("sft.held_out", heldOut);
    if (rewrites == null) {
      return new RunCounts(train + heldOut, train + heldOut, 0, counts);
    }
    new SftRewriting(run).print(rewrites);
    counts.putAll(SftRewriting.details(rewrites));
    return LlmFailures.check(
        NAME,
        "target rewrite calls",
        rewrites.outcome(),
        llm.maxFailureFraction(),
        new RunCounts(train + heldOut, train + heldOut, 0, counts));
  }

  /**
   * An example's target text (without the token) and where it came from.
   *
   * @param source {@code template} or {@code llm:<prompt@version>}
   * @param fallback why an LLM rewrite was not used; null when it was, or none was asked for
   */
  private record Target(String text, String source, String fallback) {}

  private BehaviorTokens tokens() {
    return BehaviorTokens.of(options.tokens());
  }

  /** behavior.sft.output on any Hadoop file system; a relative path is under the warehouse. */
  private Path outputDirectory() {
    Path output = new Path(options.sft().output());
    return output.isAbsolute() || output.toUri().getScheme() != null
        ? output
        : new Path(run.warehouse().root(), options.sft().output());
  }

  /** One JSON line: messages (system and user from the behaviour prompt, the assistant target). */
  private static List<Integer> ints(int[] values) {
    List<Integer> list = new ArrayList<>(values.length);
    for (int value : values) {
      list.add(value);
    }
    return list;
  }

  private static byte[] line(
      List<ChatMessage> chat, BehaviorTask task, boolean heldOut, Target target) {
    ObjectNode node = JSON.createObjectNode();
    ArrayNode messages = node.putArray("messages");
    for (ChatMessage message : chat) {
      messages.addObject().put("role", message.role()).put("content", message.content());
    }
    node.put("task_id", task.taskId());
    node.put("category", task.category());
    node.put("behavior", task.goldBehavior().id());
    node.put("source", task.source());
    node.put("split", heldOut ? "heldout" : "train");
    node.put("target_source", target.source());
    if (target.fallback() != null) {
      node.put("rewrite_fallback", target.fallback());
    }
    try {
      return (JSON.writeValueAsString(node) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void replace(FileSystem fs, Path from, Path to) throws IOException {
    fs.delete(to, false);
    if (!fs.rename(from, to)) {
      throw new IOException("cannot rename " + from + " to " + to);
    }
  }
}
