package dev.infuse.jobs.maporl;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;

import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.llm.LlmFailures;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.llm.LlmSettings;
import dev.infuse.udfs.maporl.QuestionKind;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code discuss}: MAPoRL's multi-agent discussion. Each question of {@code discuss.benchmark} is
 * an episode: every agent answers alone (turn 0), then, turn after turn, sees the others' latest
 * answers and answers again. A turn is one round of the LLM client layer for all episodes and all
 * agents at once (each request routed to its agent's client), so calls are cached, journaled and
 * resumable, and a rerun replays the cached turns without sending them again. Answers are extracted
 * from the last {@code \boxed{}} and scored by the verifier; the rows go to {@code rollouts}.
 */
public final class DiscussJob {
  public static final String NAME = "discuss";
  public static final String FIRST_TEMPLATE = "maporl-first";
  public static final String DISCUSS_TEMPLATE = "maporl-discuss";
  public static final String JUDGE_TEMPLATE = "maporl-judge";

  private static final StructType EPISODES =
      new StructType()
          .add("episode_id", DataTypes.StringType, false)
          .add("state", DataTypes.StringType, true)
          .add("reject", DataTypes.StringType, true)
          .add("question_id", DataTypes.StringType, false);

  private final JobRun run;
  private final DiscussConfig options;
  private final LlmConfig llm;

  public DiscussJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(DiscussConfig.class);
    this.llm = run.config().section(LlmConfig.class);
  }

  /** What a discuss run did, for {@code maporl}, which chains it. */
  public record Result(String discussionId, RunCounts counts) {}

  public RunCounts run() {
    return discuss().counts();
  }

  public Result discuss() {
    if (options.verifier() == DiscussConfig.Verifier.LLM_JUDGE
        && llm.client().backend() == LlmBackend.EXTRACTIVE) {
      throw new IllegalArgumentException(
          "discuss.verifier: got llm_judge with llm.backend extractive, expected a model that can"
              + " judge: set llm.backend openai (and llm.base_url, llm.model), or verifier exact");
    }
    List<LlmSettings> clients = new ArrayList<>();
    for (DiscussConfig.Agent agent : options.agents()) {
      clients.add(agent.client(llm));
    }
    PromptLibrary library =
        PromptLibrary.load(
            run.spark().sparkContext().hadoopConfiguration(), run.config().run().promptsDir());
    PromptTemplate judge =
        options.verifier() == DiscussConfig.Verifier.LLM_JUDGE ? library.get(JUDGE_TEMPLATE) : null;
    DiscussionSetup setup =
        DiscussionSetup.of(
            options,
            clients,
            library.get(FIRST_TEMPLATE),
            library.get(DISCUSS_TEMPLATE),
            judge,
            run.config().run().seed());
    String discussionId = setup.discussionId();

    Dataset<Row> started = episodes(discussionId).persist(StorageLevel.MEMORY_AND_DISK());
    try {
      long read = started.count();
      Dataset<Row> states =
          started.filter(col("state").isNotNull()).select("episode_id", "state").localCheckpoint();
      LlmCallRunner runner = new LlmCallRunner(run, llm, clients);
      LlmCallRunner judgeRunner = new LlmCallRunner(run, llm);
      LlmCallRunner.Outcome outcome = LlmCallRunner.Outcome.NONE;
      LlmCallRunner.Outcome judged = LlmCallRunner.Outcome.NONE;
      for (int turn = 0; turn < options.turns(); turn++) {
        Dataset<Row> requests =
            run.spark()
                .createDataFrame(
                    states.javaRDD().mapPartitions(new TurnRequests(setup)), TurnRequests.SCHEMA)
                .persist(StorageLevel.MEMORY_AND_DISK());
        long asked = requests.count();
        if (asked == 0) {
          requests.unpersist();
          break;
        }
        run.err().printf(Locale.ROOT, "[%s] turn %d: %d request(s)%n", NAME, turn, asked);
        outcome = outcome.plus(runner.call(requests));
        Dataset<Row> answered = runner.responses(requests);
        if (judge != null) {
          Dataset<Row> judgeRequests =
              run.spark()
                  .createDataFrame(
                      answered
                          .filter(col("status").equalTo("succeeded"))
                          .join(states, "episode_id")
                          .select("episode_id", "agent_index", "state", "response_text")
                          .javaRDD()
                          .mapPartitions(new JudgeRequests(judge, llm, options.judgeMaxTokens())),
                      JudgeRequests.SCHEMA)
                  .persist(StorageLevel.MEMORY_AND_DISK());
          judged = judged.plus(judgeRunner.call(judgeRequests));
          Dataset<Row> verdicts =
              judgeRunner
                  .responses(judgeRequests)
                  .select(
                      col("episode_id"),
                      col("agent_index"),
                      col("status").as("judge_status"),
                      col("response_text").as("judge_text"),
                      col("error").as("judge_error"));
          answered = answered.join(verdicts, new String[] {"episode_id", "agent_index"}, "left");
        } else {
          answered =
              answered
                  .withColumn("judge_status", lit(null).cast("string"))
                  .withColumn("judge_text", lit(null).cast("string"))
                  .withColumn("judge_error", lit(null).cast("string"));
        }
        Dataset<Row> grouped =
            answered
                .groupBy("episode_id")
                .agg(
                    collect_list(
                            struct(
                                col("agent_index"),
                                col("call_key"),
                                col("status"),
                                col("response_text"),
                                col("error"),
                                col("messages"),
                                col("user_message"),
                                col("judge_status"),
                                col("judge_text"),
                                col("judge_error")))
                        .as("answers"));
        Dataset<Row> next =
            run.spark()
                .createDataFrame(
                    states
                        .join(grouped, new String[] {"episode_id"}, "left")
                        .select("episode_id", "state", "answers")
                        .javaRDD()
                        .mapPartitions(new TurnResults(setup)),
                    TurnResults.SCHEMA)
                // Each turn's states are cut from the lineage: turn t would otherwise recompute
                // every earlier turn's joins.
                .localCheckpoint();
        requests.unpersist();
        states = next;
      }
      return new Result(
          discussionId, write(setup, discussionId, started, states, read, outcome, judged));
    } finally {
      started.unpersist();
    }
  }

  private RunCounts write(
      DiscussionSetup setup,
      String discussionId,
      Dataset<Row> started,
      Dataset<Row> states,
      long read,
      LlmCallRunner.Outcome outcome,
      LlmCallRunner.Outcome judged) {
    Contract contract = Contracts.load("rollouts");
    RolloutRows flatten =
        new RolloutRows(setup, discussionId, setup.templateVersions(), run.runId());
    Dataset<Row> rollouts =
        run.spark()
            .createDataFrame(states.javaRDD().mapPartitions(flatten), contract.schema())
            .persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> failed =
        run.spark()
            .createDataFrame(
                states
                    .javaRDD()
                    .map(r -> Episode.fromJson(r.getString(1)))
                    .filter(e -> e.failure() != null)
                    .map(e -> RowFactory.create(e.questionId(), e.toJson(), e.failure())),
                new StructType()
                    .add("question_id", DataTypes.StringType)
                    .add("payload", DataTypes.StringType)
                    .add("reason", DataTypes.StringType));
    Dataset<Row> rejects =
        Quarantine.deadLetters(
                started.filter(col("reject").isNotNull()),
                lit("questions"),
                col("question_id"),
                col("question_id"),
                col("reject"))
            .unionByName(
                Quarantine.deadLetters(
                    failed, lit("llm_calls"), col("question_id"), col("payload"), col("reason")));
    rejects = rejects.persist(StorageLevel.MEMORY_AND_DISK());
    try {
      long quarantined = rejects.count();
      long rows = rollouts.count();
      long episodes = rollouts.select("episode_id").distinct().count();
      WriteResult written = run.warehouse().upsert(contract, rollouts);
      run.quarantine(rejects, quarantined);
      Map<String, Long> details = LlmCallRunner.details(outcome);
      if (judged.requested() > 0) {
        details.put("judge.requests", judged.requested());
        details.put("judge.called", judged.called());
        details.put("judge.failed", judged.failed());
      }
      details.put("rollouts.rows", rows);
      details.put("rollouts.inserted", written.inserted());
      details.put("rollouts.updated", written.updated());
      details.put("episodes", episodes);
      details.put("quarantine.records", quarantined);
      run.out()
          .printf(
              Locale.ROOT,
              "discuss: %d question(s) of %s, %d agent(s) x up to %d turn(s): %d episode(s) written"
                  + " (%d rollout row(s)), %d quarantined; discussion %s%n",
              read,
              options.benchmark(),
              options.agents().size(),
              options.turns(),
              episodes,
              rows,
              quarantined,
              discussionId);
      run.out()
          .printf(
              Locale.ROOT,
              "  llm: %d request(s), %d cached, %d called, %d failed; %d tokens in, %d out%n",
              outcome.requested(),
              outcome.cached(),
              outcome.called(),
              outcome.failed(),
              outcome.tokensIn(),
              outcome.tokensOut());
      printAccuracy(rollouts);
      RunCounts counts = new RunCounts(read, episodes, quarantined, details);
      LlmFailures.check(NAME, "judge calls", judged, llm.maxFailureFraction(), counts);
      return LlmFailures.check(NAME, "LLM calls", outcome, llm.maxFailureFraction(), counts);
    } finally {
      rollouts.unpersist();
      rejects.unpersist();
    }
  }

  /** Per turn, each agent's accuracy over the episodes written: the first thing anyone asks. */
  private void printAccuracy(Dataset<Row> rollouts) {
    List<Row> rows =
        rollouts
            .groupBy("turn", "agent_id")
            .agg(
                org.apache.spark.sql.functions.avg(col("correct").cast("double")).as("accuracy"),
                org.apache.spark.sql.functions.count(lit(1)).as("n"))
            .orderBy("turn", "agent_id")
            .collectAsList();
    for (Row row : rows) {
      run.out()
          .printf(
              Locale.ROOT,
              "  turn %d, %s: accuracy %.3f over %d%n",
              row.getInt(0),
              row.getString(1),
              row.getDouble(2),
              row.getLong(3));
    }
  }

  /**
   * One row per question read: {@code (episode_id, state, reject, question_id)}, with the episode
   * started, or the reason the question cannot be discussed (no gold answer, a free-text answer).
   */
  private Dataset<Row> episodes(String discussionId) {
    Dataset<Row> questions =
        run.warehouse().read("questions").filter(col("benchmark").equalTo(options.benchmark()));
    if (options.split() != null) {
      questions = questions.filter(col("split").equalTo(options.split()));
    }
    questions = questions.orderBy("question_id");
    if (options.maxQuestions() > 0) {
      questions = questions.limit(options.maxQuestions());
    }
    // NLI premises and reading passages live in documents; stand-alone questions (GSM8K) need none.
    Dataset<Row> documents =
        run.warehouse().exists("documents")
            ? run.warehouse().read("documents").select(col("doc_id"), col("text").as("doc_text"))
            : run.spark()
                .emptyDataFrame()
                .selectExpr("CAST(NULL AS STRING) AS doc_id", "CAST(NULL AS STRING) AS doc_text")
                .limit(0);
    Dataset<Row> withDocs =
        questions
            .join(documents, questions.col("doc_id").equalTo(documents.col("doc_id")), "left")
            .select(
                questions.col("question_id"),
                questions.col("benchmark"),
                questions.col("question"),
                questions.col("options"),
                questions.col("gold"),
                questions.col("answer_type"),
                col("doc_text"));
    int agents = options.agents().size();
    return run.spark()
        .createDataFrame(
            withDocs
                .javaRDD()
                .map(
                    q -> {
                      String questionId = q.getString(0);
                      String benchmark = q.getString(1);
                      List<String> choices = q.isNullAt(3) ? List.of() : q.getList(3);
                      String gold = q.isNullAt(4) ? null : q.getString(4);
                      String answerType = q.getString(5);
                      String episodeId = Keys.shortHash(discussionId, questionId);
                      QuestionKind kind = kindOf(benchmark, answerType, choices);
                      if (gold == null) {
                        return RowFactory.create(
                            episodeId,
                            null,
                            "gold: null, expected a gold answer (discuss scores every answer)",
                            questionId);
                      }
                      if (kind == null) {
                        return RowFactory.create(
                            episodeId,
                            null,
                            "answer_type: got "
                                + answerType
                                + ", expected numeric, label (entailment, neutral, contradiction)"
                                + " or mcq: discuss extracts a number, a label or a letter",
                            questionId);
                      }
                      String text =
                          displayQuestion(
                              kind, q.getString(2), q.isNullAt(6) ? null : q.getString(6));
                      return RowFactory.create(
                          episodeId,
                          Episode.start(
                                  episodeId,
                                  questionId,
                                  benchmark,
                                  kind.id(),
                                  text,
                                  kind == QuestionKind.MCQ ? choices : List.of(),
                                  gold,
                                  agents)
                              .toJson(),
                          null,
                          questionId);
                    }),
            EPISODES);
  }

  /** How answers to a question are extracted, or null when discuss cannot check them. */
  static QuestionKind kindOf(String benchmark, String answerType, List<String> options) {
    if ("gsm8k".equals(benchmark) || "numeric".equals(answerType)) {
      return QuestionKind.GSM8K;
    }
    if ("label".equals(answerType)
        && options.stream()
            .map(o -> o.toLowerCase(Locale.ROOT))
            .toList()
            .containsAll(List.of("entailment", "neutral", "contradiction"))) {
      return QuestionKind.ANLI;
    }
    if ("mcq".equals(answerType)) {
      return QuestionKind.MCQ;
    }
    return null;
  }

  /**
   * The question as the agents read it: NLI as premise and hypothesis, a passage before its
   * question.
   */
  static String displayQuestion(QuestionKind kind, String question, String document) {
    if (document == null || document.isBlank()) {
      return question;
    }
    if (kind == QuestionKind.ANLI) {
      return "Premise: " + document.strip() + "\nHypothesis: " + question.strip();
    }
    return "Passage:\n" + document.strip() + "\n\nQuestion: " + question.strip();
  }
}
