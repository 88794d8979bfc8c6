package dev.infuse.jobs.maporl;

import static org.apache.spark.sql.functions.col;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.ModelDirectory;
import dev.infuse.udfs.lm.rl.ScalarVerifier;
import dev.infuse.udfs.lm.rl.VerifierExample;
import dev.infuse.udfs.lm.rl.VerifierTrainer;
import dev.infuse.udfs.maporl.QuestionKind;
import dev.infuse.udfs.model.Devices;
import java.io.Serializable;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * {@code train-verifier}: trains the {@code model} verifier of {@code discuss} (the reference's
 * {@code utils/reward_model.py}): a backbone started from {@code train_verifier.base_model}, a
 * fresh bias-free linear head and a sigmoid, trained by {@link VerifierTrainer} with binary
 * cross-entropy between every response token's score and {@code rollouts.correct}.
 *
 * <p>The verifier sees what {@code discuss} shows it ({@link VerifierModels#score}): the question
 * as the agents read it ({@link DiscussJob#displayQuestion}, rebuilt from {@code questions} and
 * {@code documents} by question_id, so an NLI premise or reading passage comes first) and the
 * response; both cut to the backbone's context by {@link RlTexts#fit}. The prompt column of
 * rollouts is not used: it holds the whole chat, history and template included.
 *
 * <p>Per question, {@link VerifierTrainer#balance} keeps as many correct as wrong responses, at
 * most {@code per_class_per_question} of each; a question whose responses are all correct or all
 * wrong contributes nothing. Balancing drops nothing by mistake, so it is not quarantine: the run
 * counts every rollout row considered as read and as written (trained on or balanced away), with
 * the split in the details ({@code examples.trained}, {@code examples.correct}, {@code
 * examples.wrong}, {@code balance.dropped}, {@code rollouts.without_question}, and {@code
 * final_loss_micro}, the last step's loss times 10^6). Nothing is quarantined.
 *
 * <p>The data is small, so the examples are gathered on the driver; the training is one Spark task
 * on an executor (its GPU where it has one), which tokenizes with the backbone's own tokenizer,
 * trains, and writes the verifier directory atomically ({@link ScalarVerifier#save}). The base
 * model and output directory must be reachable from that executor (local mode, or a shared file
 * system).
 */
public final class TrainVerifierJob {
  public static final String NAME = "train-verifier";

  private final JobRun run;
  private final TrainVerifierConfig options;

  public TrainVerifierJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(TrainVerifierConfig.class);
  }

  /** One response to learn from: what the verifier reads, and whether it was correct. */
  record Text(String questionId, String question, String response, int label)
      implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  public RunCounts run() {
    if (!run.warehouse().exists("rollouts")) {
      throw new IllegalArgumentException(
          "train_verifier: no rollouts table yet, expected a discuss run first");
    }
    if (options.baseModel() == null || options.baseModel().isBlank()) {
      throw new ConfigException(
          List.of(
              "train_verifier.base_model: got nothing, expected a model directory (config.json,"
                  + " model.safetensors, tokenizer.json), e.g. the SFT policy train wrote"));
    }
    Path baseModel = directory("base_model", options.baseModel());
    if (!Files.isRegularFile(baseModel.resolve(ModelDirectory.CONFIG))) {
      throw new IllegalArgumentException(
          "train_verifier.base_model: got "
              + baseModel
              + ", expected a model directory (with "
              + ModelDirectory.CONFIG
              + ")");
    }
    Path output = directory("output", options.output());
    long seed = options.seed() == null ? run.config().run().seed() : options.seed();

    List<Row> rows = texts().collectAsList();
    List<Text> texts = new ArrayList<>();
    long withoutQuestion = 0;
    for (Row row : rows) {
      if (row.isNullAt(2)) {
        withoutQuestion++;
        continue;
      }
      String question =
          DiscussJob.displayQuestion(
              QuestionKind.fromName(row.getString(1)),
              row.getString(2),
              row.isNullAt(3) ? null : row.getString(3));
      texts.add(new Text(row.getString(0), question, row.getString(4), row.getBoolean(5) ? 1 : 0));
    }
    List<Text> examples =
        VerifierTrainer.balance(
            texts, Text::questionId, Text::label, options.perClassPerQuestion(), seed);
    long correct = examples.stream().filter(t -> t.label() == 1).count();
    long wrong = examples.size() - correct;
    if (examples.isEmpty()) {
      throw new IllegalArgumentException(
          "train_verifier: "
              + rows.size()
              + " rollout row(s)"
              + (options.discussions().isEmpty() ? "" : " of " + options.discussions())
              + ", none of a question with both a correct and a wrong response, expected at"
              + " least one such question to balance");
    }

    Training training =
        new Training(
            List.copyOf(examples),
            baseModel.toAbsolutePath().normalize().toString(),
            output.toString(),
            options.steps(),
            options.batchSize(),
            options.learningRate(),
            seed);
    double loss =
        JavaSparkContext.fromSparkContext(run.spark().sparkContext())
            .parallelize(List.of(0), 1)
            .map(training)
            .collect()
            .get(0);

    run.out()
        .printf(
            Locale.ROOT,
            "train-verifier: %d rollout row(s): %d example(s) (%d correct, %d wrong) after"
                + " balancing, %d step(s), final loss %.4f; verifier written to %s%n",
            rows.size(),
            examples.size(),
            correct,
            wrong,
            options.steps(),
            loss,
            output);
    Map<String, Long> details = new LinkedHashMap<>();
    details.put("examples.trained", (long) examples.size());
    details.put("examples.correct", correct);
    details.put("examples.wrong", wrong);
    details.put("balance.dropped", (long) texts.size() - examples.size());
    details.put("rollouts.without_question", withoutQuestion);
    details.put("final_loss_micro", Math.round(loss * 1e6));
    return new RunCounts(rows.size(), rows.size(), 0, details);
  }

  /** {@code dir}, under the warehouse when relative (a local or FUSE warehouse only), absolute. */
  private Path directory(String key, String dir) {
    Path path = Path.of(dir);
    if (path.isAbsolute()) {
      return path.normalize();
    }
    String warehouse = run.config().warehouse();
    URI uri = URI.create(warehouse.replace('\\', '/'));
    if (Warehouse.isSchema(warehouse)
        || uri.getScheme() != null && !uri.getScheme().equals("file")) {
      throw new ConfigException(
          List.of(
              "train_verifier."
                  + key
                  + ": got the relative path "
                  + dir
                  + " with the warehouse "
                  + warehouse
                  + ", expected an absolute local or FUSE path when the warehouse is remote or a metastore"
                  + " schema"));
    }
    Path root = uri.getScheme() == null ? Path.of(warehouse) : Path.of(uri);
    return root.resolve(path).toAbsolutePath().normalize();
  }

  /**
   * The rollouts to learn from, one row each: {@code (question_id, question_kind, question,
   * doc_text, response, correct)}; question is null when questions has no such question_id.
   */
  Dataset<Row> texts() {
    Dataset<Row> rollouts = run.warehouse().read("rollouts");
    if (!options.discussions().isEmpty()) {
      rollouts = rollouts.filter(col("discussion_id").isin(options.discussions().toArray()));
    }
    Dataset<Row> questions =
        run.warehouse()
            .read("questions")
            .select(col("question_id").as("q_id"), col("question"), col("doc_id"));
    Dataset<Row> joined =
        rollouts.join(questions, rollouts.col("question_id").equalTo(col("q_id")), "left");
    if (run.warehouse().exists("documents")) {
      Dataset<Row> documents =
          run.warehouse().read("documents").select(col("doc_id").as("d_id"), col("text"));
      joined = joined.join(documents, col("doc_id").equalTo(col("d_id")), "left");
    } else {
      joined = joined.withColumn("text", org.apache.spark.sql.functions.lit(null).cast("string"));
    }
    return joined
        .select(
            rollouts.col("question_id"),
            col("question_kind"),
            col("question"),
            col("text").as("doc_text"),
            col("response"),
            col("correct"))
        .orderBy("question_id", "response");
  }

  /**
   * The one training task: loads the backbone, tokenizes as {@link VerifierModels#score} does,
   * trains, and writes the verifier; returns the last step's loss.
   */
  record Training(
      List<Text> examples,
      String baseModel,
      String output,
      int steps,
      int batchSize,
      double learningRate,
      long seed)
      implements Function<Integer, Double>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public Double call(Integer ignored) {
      DecoderLm backbone =
          ModelDirectory.loadDecoder(Path.of(baseModel), Devices.resolve("auto", "PyTorch"));
      try (ScalarVerifier verifier = ScalarVerifier.fromBackbone(backbone, seed())) {
        List<VerifierExample> examples = new ArrayList<>();
        for (Text text : examples()) {
          int[][] ids = VerifierModels.ids(verifier, text.question(), text.response());
          examples.add(new VerifierExample(ids[0], ids[1], text.label()));
        }
        double loss =
            VerifierTrainer.train(
                verifier,
                examples,
                new VerifierTrainer.Config(steps, batchSize, learningRate, seed));
        verifier.save(Path.of(output()));
        return loss;
      }
    }
  }
}
