package dev.infuse.jobs.shards;

import java.io.Serializable;

/**
 * One sampled training text as it travels through the shuffle to its shard's task: token ids, the
 * answer-only mask (null when every token is a target) and the text (null when no JSONL shard needs
 * it). Primitive arrays, not Spark rows of boxed integers, because this is what the shuffle
 * serializes.
 */
record ShardText(int[] ids, int[] answerMask, String text) implements Serializable {}
