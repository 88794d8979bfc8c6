package dev.infuse.jobs.maporl;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.first;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.maporl.TurnReward;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
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
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * {@code reward}: MAPoRL's rewards from verifier scores, per episode: the base reward of {@code
 * reward.horizon} and {@code reward.share} with {@code reward.gamma}, plus the corrective and
 * persuasive incentives when on, and a group-normalised advantage per question. Reads {@code
 * rollouts} and writes {@code rewards}; or, with {@code reward.input}, scores a JSONL file from any
 * other system into {@code reward.output}. An episode whose grid of agents and turns is not
 * complete cannot be rewarded (every reward reads the others' scores): its rows go to quarantine,
 * whole.
 */
public final class RewardJob {
  public static final String NAME = "reward";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One scored answer: {@code (episode_id, question_id, agent_id, turn, score, correct)}. */
  private static final StructType SCORE =
      new StructType()
          .add("agent_id", DataTypes.StringType)
          .add("turn", DataTypes.IntegerType)
          .add("score", DataTypes.DoubleType)
          .add("correct", DataTypes.BooleanType)
          .add("line", DataTypes.LongType);

  private final JobRun run;
  private final RewardConfig options;

  public RewardJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(RewardConfig.class);
  }

  public RunCounts run() {
    return options.input() == null ? fromRollouts() : fromJsonl();
  }

  private RunCounts fromRollouts() {
    List<String> discussions = discussions();
    Dataset<Row> rollouts =
        run.warehouse().read("rollouts").filter(col("discussion_id").isin(discussions.toArray()));
    Dataset<Row> episodes =
        rollouts
            .groupBy("episode_id")
            .agg(
                first("question_id").as("question_id"),
                first("run_id").as("discuss_run_id"),
                collect_list(
                        struct(
                            col("agent_id"),
                            col("turn"),
                            col("verifier_score").as("score"),
                            col("correct"),
                            lit(null).cast("long").as("line")))
                    .as("scores"));
    String settingsJson = options.settingsJson();
    EpisodeRewards rewards =
        new EpisodeRewards(
            options.settings(),
            options.advantage() == RewardConfig.Advantage.GROUP,
            Keys.shortHash(settingsJson),
            settingsJson,
            run.runId());
    Contract contract = Contracts.load("rewards");
    Dataset<Row> scored =
        run.spark()
            .createDataFrame(episodes.javaRDD().mapPartitions(rewards), EpisodeRewards.OUTPUT)
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      Dataset<Row> rows =
          scored
              .filter(col("reject").isNull())
              .select(
                  contract.columnNames().stream()
                      .map(c -> col(c))
                      .toArray(org.apache.spark.sql.Column[]::new));
      Dataset<Row> rejected =
          Quarantine.deadLetters(
              scored.filter(col("reject").isNotNull()).dropDuplicates("episode_id"),
              lit("rollouts"),
              col("episode_id"),
              col("episode_id"),
              col("reject"));
      long read = rollouts.count();
      long written = rows.count();
      long quarantinedEpisodes = rejected.count();
      long quarantinedRows = scored.filter(col("reject").isNotNull()).count();
      WriteResult write = run.warehouse().upsert(contract, rows);
      run.quarantine(rejected, quarantinedEpisodes);
      Row mean = rows.selectExpr("avg(reward)", "avg(base)", "avg(bonus)").head();
      run.out()
          .printf(
              Locale.ROOT,
              "reward: %d rollout row(s) of %d discussion(s): %d rewarded (mean reward %.4f, base"
                  + " %.4f, bonus %.4f), %d in %d incomplete episode(s) quarantined; settings %s%n",
              read,
              discussions.size(),
              written,
              mean.isNullAt(0) ? Double.NaN : mean.getDouble(0),
              mean.isNullAt(1) ? Double.NaN : mean.getDouble(1),
              mean.isNullAt(2) ? Double.NaN : mean.getDouble(2),
              quarantinedRows,
              quarantinedEpisodes,
              rewards.settingsId);
      Map<String, Long> details = new LinkedHashMap<>();
      details.put("rewards.inserted", write.inserted());
      details.put("rewards.updated", write.updated());
      details.put("quarantine.episodes", quarantinedEpisodes);
      return new RunCounts(read, written, quarantinedRows, details);
    } finally {
      scored.unpersist();
    }
  }

  /** The configured discussion, or those the latest successful discuss run wrote. */
  private List<String> discussions() {
    if (options.discussion() != null) {
      return List.of(options.discussion());
    }
    if (!run.warehouse().exists("rollouts") || !run.warehouse().exists("runs")) {
      throw new IllegalArgumentException(
          "reward.discussion: got null and no rollouts yet, expected a discuss run first (or"
              + " reward.input, a JSONL file)");
    }
    List<Row> latest =
        run.warehouse()
            .read("runs")
            .filter(col("job").equalTo(DiscussJob.NAME).and(col("status").equalTo("succeeded")))
            .orderBy(col("started_at").desc())
            .select("run_id")
            .limit(1)
            .collectAsList();
    if (latest.isEmpty()) {
      throw new IllegalArgumentException(
          "reward.discussion: got null and no succeeded discuss run in runs, expected a"
              + " rollouts.discussion_id");
    }
    List<String> ids =
        run.warehouse()
            .read("rollouts")
            .filter(col("run_id").equalTo(latest.get(0).getString(0)))
            .select("discussion_id")
            .distinct()
            .orderBy("discussion_id")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
    if (ids.isEmpty()) {
      throw new IllegalArgumentException(
          "reward.discussion: the latest discuss run "
              + latest.get(0).getString(0)
              + " wrote no rollouts, expected a discussion to reward");
    }
    return ids;
  }

  /**
   * Scores a JSONL file: every non-blank line an object with episode_id, agent_id, turn, score in
   * [0, 1] and an optional correct (0/1 or a boolean). The output repeats each line's fields and
   * adds reward, base, bonus and advantage, in the input's order.
   */
  private RunCounts fromJsonl() {
    List<Tuple2<String, Long>> lines =
        run.spark()
            .sparkContext()
            .textFile(options.input(), 1)
            .toJavaRDD()
            .zipWithIndex()
            .collect();
    Map<String, List<Row>> byEpisode = new LinkedHashMap<>();
    Map<Long, ObjectNode> objects = new HashMap<>();
    List<Row> rejects = new ArrayList<>();
    long read = 0;
    for (Tuple2<String, Long> entry : lines) {
      String line = entry._1();
      long number = entry._2() + 1;
      if (line.isBlank()) {
        continue;
      }
      read++;
      String location = options.input() + ":" + number;
      JsonNode node;
      try {
        node = JSON.readTree(line);
      } catch (IOException e) {
        rejects.add(
            Quarantine.deadLetter(
                options.input(),
                location,
                line,
                "line " + number + ": not JSON: " + e.getMessage()));
        continue;
      }
      String problem = lineProblem(node);
      if (problem != null) {
        rejects.add(
            Quarantine.deadLetter(
                options.input(), location, line, "line " + number + ": " + problem));
        continue;
      }
      Boolean correct = null;
      JsonNode c = node.get("correct");
      if (c != null && !c.isNull()) {
        correct = c.isBoolean() ? c.booleanValue() : c.intValue() == 1;
      }
      objects.put(number, (ObjectNode) node);
      byEpisode
          .computeIfAbsent(node.get("episode_id").asText(), k -> new ArrayList<>())
          .add(
              RowFactory.create(
                  node.get("agent_id").asText(),
                  node.get("turn").intValue(),
                  node.get("score").doubleValue(),
                  correct,
                  number));
    }
    String settingsJson = options.settingsJson();
    EpisodeRewards rewards =
        new EpisodeRewards(
            options.settings(),
            options.advantage() == RewardConfig.Advantage.GROUP,
            Keys.shortHash(settingsJson),
            settingsJson,
            run.runId());
    Map<Long, String> out = new HashMap<>();
    for (Map.Entry<String, List<Row>> episode : byEpisode.entrySet()) {
      EpisodeRewards.Scored scored = rewards.score(episode.getValue());
      if (scored.reject() != null) {
        for (Row row : episode.getValue()) {
          long number = row.getLong(4);
          rejects.add(
              Quarantine.deadLetter(
                  options.input(),
                  options.input() + ":" + number,
                  objects.get(number).toString(),
                  "episode " + episode.getKey() + ": " + scored.reject()));
        }
        continue;
      }
      for (int i = 0; i < scored.rewards().size(); i++) {
        TurnReward reward = scored.rewards().get(i);
        long number = scored.lines().get(i);
        ObjectNode object = objects.get(number).deepCopy();
        object.put("reward", reward.reward());
        object.put("base", reward.base());
        object.put("bonus", reward.bonus());
        if (scored.advantages() != null) {
          object.put("advantage", scored.advantages()[i]);
        }
        out.put(number, object.toString());
      }
    }
    writeLines(
        options.output(),
        out.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(Map.Entry::getValue)
            .toList());
    if (!rejects.isEmpty()) {
      run.quarantine(run.spark().createDataFrame(rejects, Quarantine.DEAD_LETTERS));
    }
    run.out()
        .printf(
            Locale.ROOT,
            "reward: %d line(s) of %s: %d rewarded into %s, %d quarantined%n",
            read,
            options.input(),
            out.size(),
            options.output(),
            rejects.size());
    return new RunCounts(read, out.size(), rejects.size(), Map.of());
  }

  /** What is wrong with one input line, or null. */
  static String lineProblem(JsonNode node) {
    if (!node.isObject()) {
      return "got " + node.getNodeType() + ", expected a JSON object";
    }
    for (String key : List.of("episode_id", "agent_id")) {
      JsonNode value = node.get(key);
      if (value == null || !value.isTextual() || value.asText().isBlank()) {
        return key + ": got " + value + ", expected a non-empty string";
      }
    }
    JsonNode turn = node.get("turn");
    if (turn == null
        || !turn.canConvertToInt()
        || !turn.isIntegralNumber()
        || turn.intValue() < 0) {
      return "turn: got " + turn + ", expected an integer >= 0";
    }
    JsonNode score = node.get("score");
    if (score == null
        || !score.isNumber()
        || !(score.doubleValue() >= 0 && score.doubleValue() <= 1)) {
      return "score: got " + score + ", expected a number in [0, 1]";
    }
    JsonNode correct = node.get("correct");
    if (correct != null
        && !correct.isNull()
        && !correct.isBoolean()
        && !(correct.isIntegralNumber() && (correct.intValue() == 0 || correct.intValue() == 1))) {
      return "correct: got " + correct + ", expected 0, 1, true or false";
    }
    return null;
  }

  private void writeLines(String target, List<String> lines) {
    Path path = new Path(target);
    try {
      FileSystem fs = path.getFileSystem(run.spark().sparkContext().hadoopConfiguration());
      try (OutputStream stream = fs.create(path, true)) {
        for (String line : lines) {
          stream.write(line.getBytes(StandardCharsets.UTF_8));
          stream.write('\n');
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reward.output: cannot write " + target, e);
    }
  }
}
