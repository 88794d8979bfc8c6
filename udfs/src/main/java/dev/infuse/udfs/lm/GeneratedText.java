package dev.infuse.udfs.lm;

/**
 * One generated row.
 *
 * @param text the completion, without the prompt, the EOS token or the stop string that ended it
 * @param finishReason {@value #STOP} (EOS or a stop string) or {@value #LENGTH} (max new tokens, or
 *     the context is full)
 * @param promptTokens prompt tokens fed to the model, after left truncation
 * @param completionTokens tokens the model produced, the EOS or the token that completed a stop
 *     string included
 */
public record GeneratedText(
    String text, String finishReason, int promptTokens, int completionTokens) {
  public static final String STOP = "stop";
  public static final String LENGTH = "length";
}
