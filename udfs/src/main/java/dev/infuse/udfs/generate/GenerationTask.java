package dev.infuse.udfs.generate;

import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The generation task kinds and their variables: the seam between a prompt and a backend. A
 * request's {@link ChatRequest#task()} holds {@link #KIND} plus the template variables, so an HTTP
 * backend sends the rendered messages while the {@code extractive} backend computes the same output
 * format from the variables alone, and one parser reads both.
 */
public final class GenerationTask {
  /** The task-map key naming the kind. */
  public static final String KIND = "task";

  /** Question-answer pairs; output a JSON array of {question, answer}. Vars: document, title, n. */
  public static final String QA = "qa";

  /** A WRAP-like restyling; output plain text. Vars: document, title, style. */
  public static final String REPHRASE = "rephrase";

  /** Salient entities; output a JSON array of strings. Vars: document, title, max_entities. */
  public static final String ENTITIES = "entities";

  /**
   * EntiGraph's first step: a summary of the document and as many of its entities as possible;
   * output a JSON object {"summary": text, "entities": [names]}. Vars: document, title.
   */
  public static final String SUMMARY_ENTITIES = "summary_entities";

  /**
   * An EntiGraph-like document about 1–3 entities; output plain text. Vars: document, title,
   * entities.
   */
  public static final String ENTITY_DOC = "entity_doc";

  /**
   * Focal rewriting: the document rewritten around given questions; plain text. Vars: document,
   * title, questions.
   */
  public static final String FOCAL = "focal";

  /**
   * One MAPoRL discussion turn (the extractive backend's {@code ExtractiveDiscussant}); output
   * plain text ending {@code Answer: \boxed{X}}. Vars: question, question_kind, options, turn,
   * own_answer, peer_answers. Turn 0 renders {@code maporl-first}, later turns {@code
   * maporl-discuss} (see {@code dev.infuse.udfs.maporl.DiscussionPrompts}).
   */
  public static final String DISCUSS = "discuss";

  /**
   * Behaviour mode: the model acts as a clinical assistant in a behaviour task's context and starts
   * its reply with one behavioural token ({@code <reactive>}, {@code <proactive>}, {@code
   * <restraint>}), then flags a problem or answers the query. Vars: context, query. Rendered by
   * {@code behavior-assistant}; the extractive backend answers with {@code
   * dev.infuse.udfs.behavior.score.ExtractiveClinician}.
   */
  public static final String BEHAVE = "behave";

  /**
   * A judge reads which behaviour a response shows; output ends {@code Behavior: <type>}. Vars:
   * context, response. Rendered by {@code behavior-judge}.
   */
  public static final String BEHAVIOR_JUDGE = "behavior_judge";

  /**
   * A behaviour task's case rewritten as a conversation among clinicians, one {@code speaker: text}
   * turn per line, keeping every finding and value (build-behavior-tasks with {@code
   * behavior.conversation=llm}). Vars: context. Rendered by {@code behavior-conversation}; the
   * reply is checked by {@code dev.infuse.udfs.behavior.tasks.ConversationRewrite}.
   */
  public static final String BEHAVIOR_CONVERSATION = "behavior_conversation";

  /**
   * A BehaviorSFT target rewritten as a natural clinical-assistant response stating the same facts,
   * without the behavioural token (sft-data with {@code behavior.sft.rewrite=llm}). Vars: context,
   * query, target. Rendered by {@code behavior-sft-rewrite}; the reply is checked by {@code
   * dev.infuse.udfs.behavior.sft.SftRewrite}.
   */
  public static final String BEHAVIOR_SFT_REWRITE = "behavior_sft_rewrite";

  /** A behaviour task's turns, one "speaker: text" line each. */
  public static final String CONTEXT = "context";

  /** The explicit query asked of the assistant; empty when it is only shown the case. */
  public static final String QUERY = "query";

  /** The response a judge reads. */
  public static final String RESPONSE = "response";

  /** The template text of a BehaviorSFT target, without its behavioural token. */
  public static final String TARGET = "target";

  /** The question text (MCQ options not included). */
  public static final String QUESTION = "question";

  /** The question kind: gsm8k, anli or mcq. */
  public static final String QUESTION_KIND = "question_kind";

  /** The MCQ options as a JSON array of strings; empty or absent for other kinds. */
  public static final String OPTIONS = "options";

  /** The discussion turn, a decimal integer >= 0. */
  public static final String TURN = "turn";

  /** The agent's parsed answer at the previous turn; empty at turn 0. */
  public static final String OWN_ANSWER = "own_answer";

  /** The other agents' parsed answers at the previous turn, a JSON array of strings. */
  public static final String PEER_ANSWERS = "peer_answers";

  /** The source document text. */
  public static final String DOCUMENT = "document";

  /** The document title, possibly empty. */
  public static final String TITLE = "title";

  /** How many QA pairs, a decimal integer >= 1. */
  public static final String N = "n";

  /** The rephrase style, one of {@link #STYLES}. */
  public static final String STYLE = "style";

  /** The most entities to list, a decimal integer >= 1. */
  public static final String MAX_ENTITIES = "max_entities";

  /** A JSON array of 1–3 entity strings. */
  public static final String ENTITIES_VAR = "entities";

  /** A JSON array of question strings. */
  public static final String QUESTIONS = "questions";

  public static final String STYLE_SIMPLE = "simple";
  public static final String STYLE_ENCYCLOPEDIC = "encyclopedic";
  public static final String STYLE_TERSE = "terse";
  public static final String STYLE_QA_DIALOGUE = "qa_dialogue";

  /** The rephrase styles, in a stable order. */
  public static final List<String> STYLES =
      List.of(STYLE_SIMPLE, STYLE_ENCYCLOPEDIC, STYLE_TERSE, STYLE_QA_DIALOGUE);

  /** Every kind, in a stable order. */
  public static final List<String> KINDS =
      List.of(
          QA,
          REPHRASE,
          ENTITIES,
          SUMMARY_ENTITIES,
          ENTITY_DOC,
          FOCAL,
          DISCUSS,
          BEHAVE,
          BEHAVIOR_JUDGE,
          BEHAVIOR_CONVERSATION,
          BEHAVIOR_SFT_REWRITE);

  /**
   * The prompts of the {@code entigraph} entity recipe's documents, by group size (1, 2, 3
   * entities): all are {@link #ENTITY_DOC} tasks.
   */
  public static final List<String> ENTIGRAPH_DOC_PROMPTS =
      List.of("entigraph/entity", "entigraph/pair", "entigraph/triple");

  private static final Map<String, Set<String>> VARIABLES =
      Map.ofEntries(
          Map.entry(QA, Set.of(DOCUMENT, TITLE, N)),
          Map.entry(REPHRASE, Set.of(DOCUMENT, TITLE, STYLE)),
          Map.entry(ENTITIES, Set.of(DOCUMENT, TITLE, MAX_ENTITIES)),
          Map.entry(SUMMARY_ENTITIES, Set.of(DOCUMENT, TITLE)),
          Map.entry(ENTITY_DOC, Set.of(DOCUMENT, TITLE, ENTITIES_VAR)),
          Map.entry(FOCAL, Set.of(DOCUMENT, TITLE, QUESTIONS)),
          Map.entry(
              DISCUSS, Set.of(QUESTION, QUESTION_KIND, OPTIONS, TURN, OWN_ANSWER, PEER_ANSWERS)),
          Map.entry(BEHAVE, Set.of(CONTEXT, QUERY)),
          Map.entry(BEHAVIOR_JUDGE, Set.of(CONTEXT, RESPONSE)),
          Map.entry(BEHAVIOR_CONVERSATION, Set.of(CONTEXT)),
          Map.entry(BEHAVIOR_SFT_REWRITE, Set.of(CONTEXT, QUERY, TARGET)));

  private GenerationTask() {}

  /** The variables a kind takes; a prompt for the kind may use only these placeholders. */
  public static Set<String> variables(String kind) {
    Set<String> vars = VARIABLES.get(kind);
    if (vars == null) {
      throw new IllegalArgumentException(unknownKind(kind));
    }
    return vars;
  }

  /**
   * The prompt id that renders a kind: {@code gen-qa}, {@code rephrase/<style>} (underscores become
   * dashes), {@code entities}, {@code entigraph/entities}, {@code entity-doc}, {@code focal},
   * {@code maporl-discuss} (a discussion's turn 0 uses {@code maporl-first} instead), {@code
   * behavior-assistant}, {@code behavior-judge}, {@code behavior-conversation}, {@code
   * behavior-sft-rewrite}; the {@code entigraph} recipe's entity documents use {@link
   * #ENTIGRAPH_DOC_PROMPTS}.
   *
   * @param style the rephrase style; ignored for other kinds
   */
  public static String promptId(String kind, String style) {
    switch (kind == null ? "" : kind) {
      case QA:
        return "gen-qa";
      case REPHRASE:
        if (!STYLES.contains(style)) {
          throw new IllegalArgumentException(
              "style: got " + style + ", expected one of " + String.join(", ", STYLES));
        }
        return "rephrase/" + style.replace('_', '-');
      case ENTITIES:
        return "entities";
      case SUMMARY_ENTITIES:
        return "entigraph/entities";
      case ENTITY_DOC:
        return "entity-doc";
      case FOCAL:
        return "focal";
      case DISCUSS:
        return "maporl-discuss";
      case BEHAVE:
        return "behavior-assistant";
      case BEHAVIOR_JUDGE:
        return "behavior-judge";
      case BEHAVIOR_CONVERSATION:
        return "behavior-conversation";
      case BEHAVIOR_SFT_REWRITE:
        return "behavior-sft-rewrite";
      default:
        throw new IllegalArgumentException(unknownKind(kind));
    }
  }

  /**
   * A request for one task: the template rendered with {@code vars}, and a task map of the kind
   * plus the variables the kind takes (others are dropped, so the map is the same whatever extras a
   * caller has).
   */
  public static ChatRequest request(
      String kind,
      PromptTemplate template,
      Map<String, String> vars,
      String model,
      GenerationParams params) {
    Set<String> allowed = variables(kind);
    List<ChatMessage> messages = new ArrayList<>();
    for (PromptTemplate.Message message : template.render(vars)) {
      messages.add(new ChatMessage(message.role(), message.content()));
    }
    Map<String, String> task = new LinkedHashMap<>();
    task.put(KIND, kind);
    for (Map.Entry<String, String> var : vars.entrySet()) {
      if (allowed.contains(var.getKey()) && var.getValue() != null) {
        task.put(var.getKey(), var.getValue());
      }
    }
    return new ChatRequest(model, messages, params, task);
  }

  private static String unknownKind(String kind) {
    return "task: got " + kind + ", expected one of " + String.join(", ", KINDS);
  }
}
