package dev.infuse.jobs.shards;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.udfs.common.EnumNames;

/** A format {@code build-shards} writes, each in its own subdirectory of the build. */
public enum ShardFormat {
  /**
   * Packed {@code input_ids}, {@code document_lengths} and masks: what {@code train --shards}
   * reads.
   */
  PARQUET,
  /** Unpacked text, one training text per line, for HuggingFace-style trainers. */
  JSONL,
  /** Megatron-LM/NeMo MMIDIDX {@code .bin} + {@code .idx}, one document per training text. */
  MEGATRON;

  /** The name in config, in {@code shard_manifest.format} and of the format's directory. */
  @JsonValue
  public String id() {
    return EnumNames.id(this);
  }

  /** As spelled in config, so messages read like the YAML. */
  @Override
  public String toString() {
    return id();
  }

  /** What a row, line or document of the format is, for {@code info.json}. */
  String layout() {
    return switch (this) {
      case PARQUET ->
          "one row per sequence: shard int, sequence bigint, input_ids array<int>, document_lengths"
              + " array<int> (tokens of each document segment, the last one possibly padding,"
              + " summing to sequence_length), loss_mask array<int> (0 on padding only),"
              + " answer_mask array<int> (0 on padding and on QA questions)";
      case JSONL ->
          "one training text per line: {\"text\", \"source\", \"id\"}, unpacked, in shard order";
      case MEGATRON ->
          "Megatron-LM MMIDIDX: <shard>.bin token ids and <shard>.idx (version 1), one document per"
              + " training text, each ending in eos_id";
    };
  }

  @JsonCreator
  public static ShardFormat fromName(String name) {
    return EnumNames.parse(ShardFormat.class, name);
  }
}
