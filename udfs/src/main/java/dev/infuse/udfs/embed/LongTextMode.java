package dev.infuse.udfs.embed;

import java.util.Locale;

/**
 * What the embedder does with a text longer than its encoder's window ({@code embed.long_text}).
 * Neither mode is silent: the embed job counts and prints the texts over the window.
 */
public enum LongTextMode {
  /**
   * Embed the whole text as consecutive windows of the encoder's length that overlap by {@link
   * DjlSentenceEmbedder#WINDOW_OVERLAP_TOKENS} tokens, and take the L2-normalised mean of the
   * windows' vectors. A text that fits is one window, embedded as before.
   */
  WINDOW("window"),
  /** Keep only the first window (truncation, what Infuse did before), and warn with a count. */
  WARN("warn");

  public static final String DEFAULT = "window";

  private final String id;

  LongTextMode(String id) {
    this.id = id;
  }

  /** The config value: window or warn. */
  public String id() {
    return id;
  }

  /** The mode a config value names. */
  public static LongTextMode of(String value) {
    for (LongTextMode mode : values()) {
      if (mode.id.equals(value == null ? null : value.trim().toLowerCase(Locale.ROOT))) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "long_text: got "
            + (value == null ? "nothing" : "'" + value + "'")
            + ", expected window or warn");
  }

  /**
   * The id stored beside vectors ({@code chunk_embeddings.model}) for a model whose files have
   * {@code filesId}: the files' id under {@link #WARN}, whose vectors are those Infuse always made
   * (truncated), and with {@link #windowSuffix} under {@link #WINDOW}, so that switching modes
   * recomputes every vector instead of mixing the two kinds.
   */
  public String modelId(String filesId) {
    return this == WARN ? filesId : filesId + windowSuffix();
  }

  /** {@code +window256-overlap64}: the encoder window and the overlap between windows. */
  public static String windowSuffix() {
    return "+window"
        + DjlSentenceEmbedder.MAX_TOKENS
        + "-overlap"
        + DjlSentenceEmbedder.WINDOW_OVERLAP_TOKENS;
  }
}
