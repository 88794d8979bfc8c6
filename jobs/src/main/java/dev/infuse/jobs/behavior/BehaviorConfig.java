package dev.infuse.jobs.behavior;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.udfs.behavior.sft.BehaviorTokens;
import dev.infuse.udfs.common.EnumNames;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.llm.LlmSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code behavior} section: one config for the whole behaviour recipe, so that building the
 * tasks, answering them, scoring, mining the Hard subset and writing SFT data agree on the same
 * taxonomy, tokens and tables. See defaults.yaml and docs/BEHAVIOR.md for each key.
 *
 * @param taxonomy the taxonomy file, relative to the Infuse home
 * @param sources the ingest formats tasks are built from, in documents and questions
 * @param seed the seed tasks are built with; null for run.seed
 * @param conversation how a case is shown: note (the default), template (MEDEC notes as a fixed
 *     clinicians' round) or llm (each case rewritten as a conversation by the llm section's model,
 *     checked before it is used)
 * @param maxRecordsPerSource at most this many source records per source, the first by key; null
 *     for all
 * @param tasksTable the table {@code answer --mode behavior} reads: behavior_tasks or
 *     behavior_tasks_hard
 * @param classifier how a response's behaviour is read when it has no leading token: rule (the
 *     default) or judge (the LLM judge through the client layer)
 * @param tokens the behavioural token of each type
 * @param hard the Hard miner's rule
 * @param sft the BehaviorSFT export
 */
public record BehaviorConfig(
    String taxonomy,
    List<String> sources,
    Long seed,
    Conversation conversation,
    Integer maxRecordsPerSource,
    String tasksTable,
    String classifier,
    Judge judge,
    Map<String, String> tokens,
    Hard hard,
    Sft sft)
    implements ConfigSection {

  public static final String TASKS = "behavior_tasks";
  public static final String HARD_TASKS = "behavior_tasks_hard";
  static final Set<String> SOURCES = Set.of("medec", "agentclinic", "aci-bench", "medqa");
  static final Set<String> CLASSIFIERS = Set.of("rule", "judge");

  /** How build-behavior-tasks shows a case ({@code behavior.conversation}). */
  public enum Conversation {
    /** As written: a note is one note turn, a dialogue keeps its speakers. */
    NOTE,
    /** MEDEC notes as a fixed attending/resident/nurse round, deterministic; others as NOTE. */
    TEMPLATE,
    /**
     * Each case rewritten as a conversation among clinicians by the llm section's model, through
     * the client layer; a rewrite that fails its check leaves the task as NOTE builds it.
     */
    LLM;

    @JsonValue
    public String id() {
      return EnumNames.id(this);
    }

    @Override
    public String toString() {
      return id();
    }

    @JsonCreator
    public static Conversation fromName(String name) {
      return EnumNames.parse(Conversation.class, name);
    }
  }

  /** Where BehaviorSFT's target texts come from ({@code behavior.sft.rewrite}). */
  public enum TargetRewrite {
    /** The versioned templates of SftTargets. */
    TEMPLATE,
    /**
     * The template text rewritten by the llm section's model, through the client layer; a rewrite
     * that is not content-correct falls back to the template.
     */
    LLM;

    @JsonValue
    public String id() {
      return EnumNames.id(this);
    }

    @Override
    public String toString() {
      return id();
    }

    @JsonCreator
    public static TargetRewrite fromName(String name) {
      return EnumNames.parse(TargetRewrite.class, name);
    }
  }

  /**
   * The LLM judge that reads a response's behaviour (classifier judge): often a stronger model than
   * the one answering, so it has its own endpoint. Null fields inherit the {@code llm} section's
   * backend, base_url, model and api_key_env. It decodes greedily, so a rerun asks the same
   * question and hits the cache.
   *
   * @param maxTokens the judge's completion budget: a sentence of reason and the verdict line
   */
  public record Judge(
      LlmBackend backend, String baseUrl, String model, String apiKeyEnv, int maxTokens) {

    /** The judge's client: the {@code llm} section's, with the judge's endpoint and model. */
    public LlmSettings client(LlmConfig llm) {
      LlmSettings base = llm.client();
      return new LlmSettings(
          backend == null ? base.backend() : backend,
          baseUrl == null ? base.baseUrl() : baseUrl,
          model == null ? base.model() : model,
          apiKeyEnv == null ? base.apiKeyEnv() : apiKeyEnv,
          base.maxConcurrency(),
          base.requestTimeoutSeconds(),
          base.rowTimeoutSeconds(),
          base.maxAttempts(),
          base.initialBackoffMillis(),
          base.maxBackoffMillis(),
          base.device());
    }
  }

  /**
   * The Hard subset: tasks that at least {@code minFailures} of the {@code runs} panel fail.
   *
   * @param runs the panel: behavior_predictions run ids; empty for every behaviour answer run of
   *     behavior_tasks
   * @param minFailures m, the failures a task needs; at most the panel's size
   * @param maxPerCategory stratify: at most this many tasks per category, the most failed first;
   *     null for no cap
   */
  public record Hard(List<String> runs, int minFailures, Integer maxPerCategory) {
    public Hard {
      runs = runs == null ? List.of() : List.copyOf(runs);
    }
  }

  /**
   * BehaviorSFT's export.
   *
   * @param output the directory written (train.jsonl, heldout.jsonl, parquet/), relative to the
   *     warehouse
   * @param heldOutFraction the fraction of tasks, chosen by hash of task_id, kept out of training
   * @param tokenizer the tokenizer of the {@code train} job's input ({@code default} or a
   *     tokenizer.json)
   * @param sequenceLength the tokens of each training sequence (train.sequence_length must match)
   * @param rewrite where the target texts come from: template, or llm (rewritten by the llm
   *     section's model, checked for content)
   */
  public record Sft(
      String output,
      double heldOutFraction,
      String tokenizer,
      int sequenceLength,
      TargetRewrite rewrite) {}

  public BehaviorConfig {
    sources = sources == null ? List.of() : List.copyOf(sources);
    tokens = tokens == null ? Map.of() : new LinkedHashMap<>(tokens);
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (taxonomy == null || taxonomy.isBlank()) {
      problems.add(
          "taxonomy: got nothing, expected a taxonomy file such as conf/behavior/taxonomy.yaml");
    }
    if (sources.isEmpty()) {
      problems.add("sources: got none, expected some of " + new TreeSet<>(SOURCES));
    }
    for (String source : sources) {
      if (!SOURCES.contains(source)) {
        problems.add("sources: got " + source + ", expected some of " + new TreeSet<>(SOURCES));
      }
    }
    if (conversation == null) {
      problems.add("conversation: got nothing, expected " + EnumNames.expected(Conversation.class));
    }
    if (maxRecordsPerSource != null && maxRecordsPerSource <= 0) {
      problems.add(
          "max_records_per_source: got "
              + maxRecordsPerSource
              + ", expected a positive integer or null");
    }
    if (!TASKS.equals(tasksTable) && !HARD_TASKS.equals(tasksTable)) {
      problems.add("tasks_table: got " + tasksTable + ", expected " + TASKS + " or " + HARD_TASKS);
    }
    if (!CLASSIFIERS.contains(classifier)) {
      problems.add("classifier: got " + classifier + ", expected rule or judge");
    }
    if (judge == null) {
      problems.add(
          "judge: got nothing, expected {backend, base_url, model, api_key_env, max_tokens}");
    } else if (judge.maxTokens() < 8) {
      problems.add(
          "judge.max_tokens: got "
              + judge.maxTokens()
              + ", expected at least 8 (a short reason and the Behavior: line)");
    }
    try {
      BehaviorTokens.of(tokens);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    if (hard == null) {
      problems.add("hard: got nothing, expected {runs, min_failures, max_per_category}");
    } else {
      if (hard.minFailures() < 1) {
        problems.add("hard.min_failures: got " + hard.minFailures() + ", expected at least 1");
      }
      if (hard.maxPerCategory() != null && hard.maxPerCategory() < 1) {
        problems.add(
            "hard.max_per_category: got "
                + hard.maxPerCategory()
                + ", expected a positive integer or null");
      }
      if (!hard.runs().isEmpty() && hard.minFailures() > hard.runs().size()) {
        problems.add(
            "hard.min_failures: got "
                + hard.minFailures()
                + " with a panel of "
                + hard.runs().size()
                + " run(s), expected at most the panel's size");
      }
    }
    if (sft == null) {
      problems.add(
          "sft: got nothing, expected {output, held_out_fraction, tokenizer, sequence_length,"
              + " rewrite}");
    } else {
      if (sft.output() == null || sft.output().isBlank()) {
        problems.add("sft.output: got nothing, expected the directory to write");
      }
      if (sft.tokenizer() == null || sft.tokenizer().isBlank()) {
        problems.add("sft.tokenizer: got nothing, expected default or a tokenizer.json");
      }
      if (sft.sequenceLength() < 8) {
        problems.add("sft.sequence_length: got " + sft.sequenceLength() + ", expected at least 8");
      }
      if (sft.rewrite() == null) {
        problems.add(
            "sft.rewrite: got nothing, expected " + EnumNames.expected(TargetRewrite.class));
      }
      if (!(sft.heldOutFraction() >= 0 && sft.heldOutFraction() < 1)) {
        problems.add(
            "sft.held_out_fraction: got "
                + sft.heldOutFraction()
                + ", expected a fraction in [0, 1)");
      }
    }
    return problems;
  }
}
