package dev.infuse.udfs.maporl;

import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The messages of a MAPoRL discussion, as the reference builds them: turn 0 is the question with
 * the per-kind answer instruction ({@code maporl-first}); each later turn shows the agent its own
 * history, then one user message ({@code maporl-discuss}) with every other agent's latest response
 * (and, with feedback on, their verifier-score lines and the agent's own), ending with the question
 * again.
 *
 * <p>Texts: the two templates (conf/prompts/maporl-first.yaml, maporl-discuss.yaml) and {@link
 * PromptWording} (the instructions, score bands and peer blocks, versioned as {@code
 * maporl-wording}). {@link #templateVersions()} names all three versions.
 */
public final class DiscussionPrompts {
  /** The first turn's template id. */
  public static final String FIRST_ID = "maporl-first";

  /** The discussion turns' template id. */
  public static final String DISCUSS_ID = "maporl-discuss";

  private final PromptTemplate first;
  private final PromptTemplate discuss;
  private final boolean feedback;

  /**
   * @param first the {@code maporl-first} template: one user message, vars question and
   *     answer_instruction
   * @param discuss the {@code maporl-discuss} template: one user message, vars others, own_feedback
   *     and question
   * @param feedback whether agents see verifier scores (the reference's reward_feedback)
   */
  public DiscussionPrompts(PromptTemplate first, PromptTemplate discuss, boolean feedback) {
    this.first = singleUserMessage(Objects.requireNonNull(first, "first"), "first");
    this.discuss = singleUserMessage(Objects.requireNonNull(discuss, "discuss"), "discuss");
    this.feedback = feedback;
  }

  /** Whether agents see verifier scores. */
  public boolean feedback() {
    return feedback;
  }

  /**
   * The question as agents see it: the text itself; for MCQ, followed by a blank line and one
   * lettered line per option ("A. …"). ANLI questions arrive as one text (premise and hypothesis
   * already in it) and are shown as they are, options too when a caller gives any.
   */
  public static String questionText(String question, QuestionKind kind, List<String> options) {
    String text = question == null ? "" : question.strip();
    if (options == null || options.isEmpty()) {
      return text;
    }
    StringBuilder out = new StringBuilder(text).append("\n");
    for (int i = 0; i < options.size(); i++) {
      out.append('\n').append((char) ('A' + i)).append(". ").append(options.get(i).strip());
    }
    return out.toString();
  }

  /** The turn-0 user message. */
  public String firstMessage(String question, QuestionKind kind, List<String> options) {
    Map<String, String> vars = new LinkedHashMap<>();
    vars.put("question", questionText(question, kind, options));
    vars.put(
        "answer_instruction",
        PromptWording.answerInstruction(kind, options == null ? 0 : options.size()));
    return first.render(vars).get(0).content();
  }

  /**
   * The user message of a turn t >= 1.
   *
   * @param othersLatest every other agent's response at t - 1, in a fixed agent order (numbered 1,
   *     2, … in the message); their scores are shown only with feedback on, and a null score shows
   *     no line
   * @param ownLatestScore the agent's own verifier score at t - 1; required with feedback on,
   *     ignored without
   * @throws IllegalArgumentException when feedback is on and {@code ownLatestScore} is null, or
   *     there are no other agents
   */
  public String discussMessage(
      String question,
      QuestionKind kind,
      List<String> options,
      List<PeerAnswer> othersLatest,
      Double ownLatestScore) {
    if (othersLatest == null || othersLatest.isEmpty()) {
      throw new IllegalArgumentException(
          "othersLatest: got none, expected the latest response of every other agent");
    }
    if (feedback && ownLatestScore == null) {
      throw new IllegalArgumentException(
          "ownLatestScore: got null with feedback on, expected the agent's verifier score");
    }
    StringBuilder others = new StringBuilder();
    for (int i = 0; i < othersLatest.size(); i++) {
      PeerAnswer peer = othersLatest.get(i);
      others.append(
          PromptWording.peerBlock(i + 1, peer.response(), feedback ? peer.score() : null));
    }
    Map<String, String> vars = new LinkedHashMap<>();
    vars.put("others", others.toString());
    vars.put("own_feedback", feedback ? PromptWording.ownScore(ownLatestScore) : "");
    vars.put("question", questionText(question, kind, options));
    return discuss.render(vars).get(0).content();
  }

  /**
   * The conversation an agent is given: each earlier turn's user message and its own response (as
   * the assistant), then the new user message.
   */
  public List<ChatMessage> conversation(List<AgentTurn> ownHistory, String newUserMessage) {
    List<ChatMessage> messages = new ArrayList<>();
    for (AgentTurn turn : ownHistory == null ? List.<AgentTurn>of() : ownHistory) {
      messages.add(new ChatMessage("user", turn.userMessage()));
      messages.add(new ChatMessage("assistant", turn.response()));
    }
    messages.add(new ChatMessage("user", Objects.requireNonNull(newUserMessage, "newUserMessage")));
    return List.copyOf(messages);
  }

  /** The versions of every text used: {@code maporl-first@1,maporl-discuss@1,maporl-wording@1}. */
  public String templateVersions() {
    return first.id()
        + "@"
        + first.version()
        + ","
        + discuss.id()
        + "@"
        + discuss.version()
        + ","
        + PromptWording.versionTag();
  }

  private static PromptTemplate singleUserMessage(PromptTemplate template, String name) {
    if (template.messages() == null
        || template.messages().size() != 1
        || !"user".equals(template.messages().get(0).role())) {
      throw new IllegalArgumentException(
          name
              + ": prompt "
              + template.id()
              + "@v"
              + template.version()
              + " has "
              + (template.messages() == null ? 0 : template.messages().size())
              + " message(s), expected one user message");
    }
    return template;
  }
}
