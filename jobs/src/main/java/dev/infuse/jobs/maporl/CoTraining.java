package dev.infuse.jobs.maporl;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.from_json;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigJson;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.run.RecordedSteps;
import dev.infuse.jobs.score.ScoreJob;
import dev.infuse.jobs.train.TrainJob;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.lm.ModelDirectory;
import dev.infuse.udfs.lm.rl.PolicyUpdateConfig;
import dev.infuse.udfs.lm.rl.RlCheckpoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code maporl}: MAPoRL co-training as a chain of recorded jobs. Each iteration is {@code discuss}
 * (every agent served from its own current policy through the djl backend), {@code reward}, and
 * {@code maporl-update} (each agent's update its own Spark task); then {@code score} computes the
 * per-turn metrics of every iteration's discussion, and the rewarded rollouts can be exported for
 * other trainers. A killed run resumes by running the same command again: the discussions replay
 * from llm_calls, rewards rewrite nothing, and an agent whose iteration checkpoint exists is not
 * updated again.
 */
public final class CoTraining {
  private final InfuseConfig config;
  private final MaporlConfig options;
  private final DiscussConfig discuss;
  private final List<String> agentIds = new ArrayList<>();
  private final List<String> startDirs = new ArrayList<>();
  private final List<String> roots = new ArrayList<>();
  private final List<Boolean> trained = new ArrayList<>();
  private final String trainingId;

  public CoTraining(InfuseConfig config) {
    this.config = config;
    this.options = config.section(MaporlConfig.class);
    this.discuss = config.section(DiscussConfig.class);
    List<String> problems = new ArrayList<>();
    if (options.policies().size() != discuss.agents().size()) {
      problems.add(
          "maporl.policies: got "
              + options.policies().size()
              + " model director(ies), expected one per discuss.agents entry ("
              + discuss.agents().size()
              + ")");
    }
    Set<String> ids = new HashSet<>();
    for (DiscussConfig.Agent agent : discuss.agents()) {
      ids.add(agent.id());
    }
    for (String agent : options.trainAgents()) {
      if (!ids.contains(agent)) {
        problems.add(
            "maporl.train_agents: got " + agent + ", expected ids of discuss.agents " + ids);
      }
    }
    RewardConfig reward = config.section(RewardConfig.class);
    if (PolicyUpdateConfig.GRPO.equals(options.algorithm())
        && reward.advantage() != RewardConfig.Advantage.GROUP) {
      problems.add(
          "reward.advantage: got gae with maporl.algorithm grpo, expected group (grpo has no value"
              + " head)");
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    for (int i = 0; i < discuss.agents().size(); i++) {
      String id = discuss.agents().get(i).id();
      agentIds.add(id);
      Path start = TrainJob.modelDir(config.warehouse(), options.policies().get(i));
      if (!Files.isRegularFile(start.resolve(ModelDirectory.CONFIG))) {
        problems.add(
            "maporl.policies["
                + i
                + "]: got "
                + start
                + ", expected a model directory from train (with "
                + ModelDirectory.CONFIG
                + ")");
      }
      startDirs.add(start.toString());
      roots.add(TrainJob.modelDir(config.warehouse(), options.output()).resolve(id).toString());
      trained.add(options.trainAgents().isEmpty() || options.trainAgents().contains(id));
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    // The same configuration resumes the same co-training: its rows in maporl_updates are replaced.
    this.trainingId =
        "maporl-"
            + Keys.shortHash(
                ConfigJson.canonical(
                    JsonNodeFactory.instance
                        .objectNode()
                        .put("maporl", String.valueOf(options))
                        .put("discuss", String.valueOf(discuss))
                        .put("reward", String.valueOf(reward))
                        .put("seed", config.run().seed())));
  }

  /** The recorded steps and headings the chain prints. */
  public int steps() {
    return options.iterations() * 3 + 1 + (options.export() == null ? 0 : 1);
  }

  public String trainingId() {
    return trainingId;
  }

  /** Runs every iteration, then scores; returns the discussions, one per iteration. */
  public List<String> run(RecordedSteps steps) {
    List<String> discussions = new ArrayList<>();
    for (int iteration = 1; iteration <= options.iterations(); iteration++) {
      int k = iteration;
      List<String> current = new ArrayList<>();
      for (int i = 0; i < agentIds.size(); i++) {
        current.add(
            trained.get(i) && k > 1
                ? RlCheckpoints.directory(Path.of(roots.get(i)), k - 1).toString()
                : startDirs.get(i));
      }
      String discussRun =
          steps.run(
              String.format(
                  Locale.ROOT,
                  "discuss: iteration %d/%d, %d agent(s) on their current policies",
                  k,
                  options.iterations(),
                  agentIds.size()),
              DiscussJob.NAME,
              r -> new DiscussJob(r).run(),
              loader -> agents(loader, current, k));
      String discussion = discussionOf(steps, discussRun);
      discussions.add(discussion);
      steps.run(
          "reward: iteration " + k + ", discussion " + discussion,
          RewardJob.NAME,
          r -> new RewardJob(r).run(),
          loader -> loader.setString("reward.discussion", discussion));
      steps.run(
          String.format(
              Locale.ROOT,
              "maporl-update: iteration %d, %s of %s, one Spark task per agent",
              k,
              options.algorithm(),
              trained.contains(false) ? "the trained agents" : "every agent"),
          PolicyUpdateJob.NAME,
          r -> new PolicyUpdateJob(r, k, discussion, trainingId, startDirs, roots, trained).run(),
          loader -> {});
    }
    steps.run(
        "score: per-turn discussion metrics of every iteration",
        ScoreJob.NAME,
        r -> new ScoreJob(r).run(),
        loader ->
            loader
                .setStrings("score.discussions", discussions)
                .setStrings("score.runs", List.of()));
    if (options.export() != null) {
      steps.heading("export: rewarded rollouts to " + options.export());
      export(Warehouse.of(steps.spark(), config), discussions);
    }
    return discussions;
  }

  /** Every agent served by djl from its current policy, sampling at temperature 1 (on-policy). */
  private void agents(ConfigLoader loader, List<String> current, int iteration) {
    ArrayNode agents = JsonNodeFactory.instance.arrayNode();
    for (int i = 0; i < discuss.agents().size(); i++) {
      DiscussConfig.Agent agent = discuss.agents().get(i);
      ObjectNode node = agents.addObject();
      node.put("id", agent.id());
      node.put("backend", "djl");
      node.putNull("base_url");
      node.put("model", current.get(i));
      node.putNull("api_key_env");
      // The update scores log-probabilities of the raw logits: sampling at 1 keeps it on-policy.
      node.put("temperature", 1.0);
      if (agent.maxTokens() == null) {
        node.putNull("max_tokens");
      } else {
        node.put("max_tokens", agent.maxTokens());
      }
      if (agent.topP() == null) {
        node.putNull("top_p");
      } else {
        node.put("top_p", agent.topP());
      }
    }
    // JSON is YAML's flow syntax: the list binds as the agents' records.
    loader.set("discuss.agents=" + agents);
    loader.set("discuss.iteration=" + iteration);
  }

  private String discussionOf(RecordedSteps steps, String discussRun) {
    List<String> ids =
        Warehouse.of(steps.spark(), config)
            .read("rollouts")
            .filter(col("run_id").equalTo(discussRun))
            .select("discussion_id")
            .distinct()
            .as(Encoders.STRING())
            .collectAsList();
    if (ids.size() != 1) {
      throw new IllegalStateException(
          "maporl: discuss run "
              + discussRun
              + " wrote "
              + ids.size()
              + " discussions, expected 1");
    }
    return ids.get(0);
  }

  /**
   * Rollouts with rewards and advantages, one row per response, in the schema TRL, OpenRLHF and
   * verl read (docs/MAPORL.md): Parquet when the path ends in .parquet, else JSON Lines (a
   * directory of part files).
   */
  private void export(Warehouse warehouse, List<String> discussions) {
    RewardConfig reward = config.section(RewardConfig.class);
    StructType message =
        new StructType().add("role", DataTypes.StringType).add("content", DataTypes.StringType);
    Dataset<Row> rows =
        warehouse
            .read("rollouts")
            .filter(col("discussion_id").isin(discussions.toArray()))
            .join(
                warehouse
                    .read("rewards")
                    .filter(col("reward_settings_id").equalTo(reward.settingsId()))
                    .select(
                        "episode_id", "agent_id", "turn", "reward", "advantage", "base", "bonus"),
                new String[] {"episode_id", "agent_id", "turn"})
            .select(
                from_json(col("prompt"), DataTypes.createArrayType(message)).as("prompt"),
                col("response"),
                col("reward"),
                col("advantage"),
                col("agent_id").as("agent"),
                col("turn"),
                col("base"),
                col("bonus"),
                col("verifier_score").as("score"),
                col("correct"),
                col("episode_id"),
                col("question_id"),
                col("iteration"),
                col("model"))
            .orderBy("iteration", "episode_id", "agent", "turn");
    String target = TrainJob.modelDir(config.warehouse(), options.export()).toString();
    if (target.endsWith(".parquet")) {
      rows.coalesce(1).write().mode("overwrite").parquet(target);
    } else {
      rows.coalesce(1).write().mode("overwrite").json(target);
    }
  }
}
