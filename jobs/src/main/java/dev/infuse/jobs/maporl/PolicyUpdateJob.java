package dev.infuse.jobs.maporl;

import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.max;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.PlainChatTemplate;
import dev.infuse.udfs.lm.rl.PolicyUpdateConfig;
import dev.infuse.udfs.lm.rl.UpdateStats;
import dev.infuse.udfs.maporl.AgentAnswer;
import dev.infuse.udfs.maporl.DiscussionMetrics;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import scala.Tuple2;

/**
 * {@code maporl-update}: one co-training iteration's policy updates. The iteration's rewarded
 * responses are split by agent into as many partitions as agents, and each partition is one Spark
 * task ({@link AgentUpdateTask}) that updates that agent's own policy, so the agents train in
 * parallel, each with its own optimizer state and checkpoints. Writes one {@code maporl_updates}
 * row per agent.
 */
public final class PolicyUpdateJob {
  public static final String NAME = "maporl-update";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final JobRun run;
  private final int iteration;
  private final String discussionId;
  private final String maporlRunId;
  private final List<String> startDirs;
  private final List<String> roots;
  private final List<Boolean> trained;

  /**
   * @param maporlRunId the co-training's id, the key of its rows in maporl_updates
   * @param startDirs per agent, the starting model (the KL reference)
   * @param roots per agent, its checkpoint directory
   * @param trained per agent, whether it is updated
   */
  public PolicyUpdateJob(
      JobRun run,
      int iteration,
      String discussionId,
      String maporlRunId,
      List<String> startDirs,
      List<String> roots,
      List<Boolean> trained) {
    this.run = run;
    this.iteration = iteration;
    this.discussionId = discussionId;
    this.maporlRunId = maporlRunId;
    this.startDirs = startDirs;
    this.roots = roots;
    this.trained = trained;
  }

  public RunCounts run() {
    MaporlConfig options = run.config().section(MaporlConfig.class);
    RewardConfig reward = run.config().section(RewardConfig.class);
    List<String> agentIds =
        run.config().section(DiscussConfig.class).agents().stream()
            .map(DiscussConfig.Agent::id)
            .toList();
    PolicyUpdateConfig update = options.update(run.config().run().seed());
    Dataset<Row> rollouts =
        run.warehouse().read("rollouts").filter(col("discussion_id").equalTo(discussionId));
    Dataset<Row> rewarded =
        run.warehouse()
            .read("rewards")
            .filter(col("reward_settings_id").equalTo(reward.settingsId()))
            .select("episode_id", "agent_id", "turn", "reward", "advantage")
            .join(
                rollouts.select(
                    "episode_id", "agent_id", "turn", "prompt", "response", "question_id"),
                new String[] {"episode_id", "agent_id", "turn"});
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < agentIds.size(); i++) {
      index.put(agentIds.get(i), i);
    }
    JavaPairRDD<Integer, AgentUpdateTask.Sample> samples =
        rewarded
            .javaRDD()
            .mapToPair(
                r ->
                    new Tuple2<>(
                        index.get(r.<String>getAs("agent_id")),
                        new AgentUpdateTask.Sample(
                            r.<String>getAs("episode_id") + "/" + r.<Integer>getAs("turn"),
                            PlainChatTemplate.render(messages(r.getAs("prompt"))),
                            r.getAs("response"),
                            r.<Double>getAs("reward"),
                            r.isNullAt(r.fieldIndex("advantage"))
                                ? null
                                : r.<Double>getAs("advantage"))))
            .partitionBy(new HashPartitioner(agentIds.size()));
    long read = rewarded.count();
    if (read == 0) {
      throw new IllegalArgumentException(
          "maporl-update: discussion "
              + discussionId
              + " has no rewards under the reward settings "
              + reward.settingsId()
              + "; expected a reward run first");
    }
    // The task carries names, paths and settings only; each agent's models load in its own task.
    AgentUpdateTask task =
        new AgentUpdateTask(agentIds, startDirs, roots, trained, iteration, update);
    List<String> results = samples.mapPartitionsWithIndex(task, true).collect();

    Map<String, Double> meanReward = new HashMap<>();
    for (Row row : rewarded.groupBy("agent_id").agg(avg("reward")).collectAsList()) {
      meanReward.put(row.getString(0), row.getDouble(1));
    }
    int lastTurn = rollouts.agg(max("turn")).head().getInt(0);
    List<AgentAnswer> answers = new ArrayList<>();
    for (Row row :
        rollouts
            .select("question_id", "agent_id", "turn", "parsed_answer", "correct")
            .collectAsList()) {
      answers.add(
          new AgentAnswer(
              row.getString(0),
              row.getString(1),
              row.getInt(2),
              row.getString(3),
              row.getBoolean(4)));
    }
    DiscussionMetrics.TurnMetrics last =
        DiscussionMetrics.compute(answers).turns().stream()
            .filter(t -> t.turn() == lastTurn)
            .findFirst()
            .orElseThrow();

    List<Row> rows = new ArrayList<>();
    Map<String, Long> details = new LinkedHashMap<>();
    long updated = 0;
    for (String line : results) {
      AgentUpdateTask.Result result;
      try {
        result = JSON.readValue(line, AgentUpdateTask.Result.class);
      } catch (JsonProcessingException e) {
        throw new UncheckedIOException(e);
      }
      UpdateStats stats = result.stats();
      if (result.trained()) {
        updated++;
      }
      rows.add(
          RowFactory.create(
              maporlRunId,
              iteration,
              result.agentId(),
              result.trained(),
              update.algorithm(),
              result.samples(),
              meanReward.getOrDefault(result.agentId(), Double.NaN),
              last.agentAccuracy().getOrDefault(result.agentId(), Double.NaN),
              last.majorityVote(),
              stats == null ? null : stats.policyLoss(),
              stats == null || !update.usesValueHead() ? null : stats.valueLoss(),
              stats == null ? null : stats.meanKl(),
              stats == null ? null : stats.clipFraction(),
              stats == null ? null : stats.learningRate(),
              result.checkpoint(),
              result.seconds()));
      details.put("resumed." + result.agentId(), result.resumed() ? 1L : 0L);
      run.out()
          .printf(
              Locale.ROOT,
              "  iteration %d, %s: %s%s, %d sample(s), mean reward %.4f, final-turn accuracy %.3f%s%n",
              iteration,
              result.agentId(),
              result.trained() ? update.algorithm() + " update" : "frozen",
              result.resumed() ? " (resumed from its checkpoint)" : "",
              result.samples(),
              meanReward.getOrDefault(result.agentId(), Double.NaN),
              last.agentAccuracy().getOrDefault(result.agentId(), Double.NaN),
              stats == null
                  ? ""
                  : String.format(
                      Locale.ROOT,
                      ", policy loss %.4f, KL %.4f, clip %.3f",
                      stats.policyLoss(),
                      stats.meanKl(),
                      stats.clipFraction()));
    }
    run.out()
        .printf(
            Locale.ROOT,
            "maporl-update: iteration %d, %d agent(s) updated; final-turn majority accuracy %.3f%n",
            iteration,
            updated,
            last.majorityVote());
    Contract contract = Contracts.load("maporl_updates");
    run.warehouse().upsert(contract, run.spark().createDataFrame(rows, contract.schema()));
    details.put("agents.updated", updated);
    return new RunCounts(read, read, 0, details);
  }

  private static List<ChatMessage> messages(String json) {
    try {
      return List.of(JSON.readValue(json, ChatMessage[].class));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(
          "rollouts.prompt does not parse: " + e.getOriginalMessage(), e);
    }
  }
}
