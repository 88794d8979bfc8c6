package dev.infuse.jobs.shards;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.decontam.DecontaminationMode;
import dev.infuse.udfs.decontam.DecontaminationSettings;
import dev.infuse.udfs.decontam.SourceQuotes;
import dev.infuse.udfs.dedup.DedupConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code shards} section of {@code build-shards}: mixture, output, formats, tokenization and
 * the cleaning stages.
 *
 * @param mixture a mixture file ({@code conf/mixtures/*.yaml}), relative to the Infuse home
 * @param output the output directory or URI; relative to the warehouse; null for {@code
 *     <warehouse>/shards/<mixture name>}
 * @param seed overrides the mixture's seed; null keeps it
 * @param totalTokens overrides the mixture's token target (0: every token once); null keeps it
 * @param tokensPerShard shards are cut so that each holds about this many tokens
 * @param countTokenizer the tokenizer info.json counts unique and seen synthetic tokens in ({@code
 *     default} or a tokenizer.json, ideally the trained model's); null for {@code tokenizer}
 */
public record ShardsConfig(
    String mixture,
    String output,
    List<ShardFormat> formats,
    String tokenizer,
    String countTokenizer,
    int sequenceLength,
    boolean pack,
    long tokensPerShard,
    String corpus,
    String replay,
    Long seed,
    Long totalTokens,
    Dedup dedup,
    Decontamination decontamination)
    implements ConfigSection {

  /**
   * {@code shards.dedup}: exact and MinHash-LSH near-duplicate removal.
   *
   * @param settings the MinHash and LSH settings; {@code DedupConfig} documents the defaults
   */
  public record Dedup(boolean enabled, @JsonUnwrapped DedupConfig settings) {}

  /**
   * {@code shards.decontamination}: n-gram decontamination against the {@code questions} table.
   * {@link DecontaminationSettings} documents each setting and its default.
   *
   * @param benchmarks the benchmarks to protect; empty for every benchmark in {@code questions}
   * @param mode remove_span or drop_row
   * @param sourceQuotes exempt_in_corpus, exempt_everywhere or not_exempt
   */
  public record Decontamination(
      boolean enabled,
      List<String> benchmarks,
      int ngramWords,
      int minShortWords,
      DecontaminationMode mode,
      int marginChars,
      SourceQuotes sourceQuotes,
      int tooDirtyCutoff,
      int minPieceChars) {
    /** What the decontaminator takes; valid once the section has no problems. */
    public DecontaminationSettings settings() {
      return new DecontaminationSettings(
          ngramWords,
          minShortWords,
          mode,
          marginChars,
          sourceQuotes,
          tooDirtyCutoff,
          minPieceChars);
    }

    List<String> problems() {
      return DecontaminationSettings.problems(
          ngramWords,
          minShortWords,
          mode,
          marginChars,
          sourceQuotes,
          tooDirtyCutoff,
          minPieceChars);
    }
  }

  /**
   * The tokenizer synthetic tokens are counted in: {@code count_tokenizer}, else {@code tokenizer}.
   */
  public String countTokenizerOrShard() {
    return countTokenizer == null ? tokenizer : countTokenizer;
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (mixture == null || mixture.isBlank()) {
      problems.add(
          "mixture: got nothing, expected a mixture file such as conf/mixtures/smt-mixed.yaml");
    }
    if (formats.isEmpty()) {
      problems.add("formats: got [], expected one or more of parquet, jsonl, megatron");
    }
    if (sequenceLength < 2) {
      problems.add("sequence_length: got " + sequenceLength + ", expected an integer >= 2");
    }
    if (totalTokens != null && totalTokens < 0) {
      problems.add(
          "total_tokens: got " + totalTokens + ", expected >= 0 (0: every token once), or null");
    }
    if (tokensPerShard < sequenceLength) {
      problems.add(
          "tokens_per_shard: got "
              + tokensPerShard
              + ", expected at least sequence_length ("
              + sequenceLength
              + ")");
    }
    if (tokenizer == null || tokenizer.isBlank()) {
      problems.add("tokenizer: got nothing, expected 'default' or the path of a tokenizer.json");
    }
    if (countTokenizer != null && countTokenizer.isBlank()) {
      problems.add(
          "count_tokenizer: got a blank string, expected null (the shard tokenizer), 'default' or"
              + " the path of a tokenizer.json");
    }
    dedup.settings().problems().forEach(problem -> problems.add("dedup." + problem));
    decontamination.problems().forEach(problem -> problems.add("decontamination." + problem));
    return problems;
  }
}
