package dev.infuse.udfs.behavior;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Objects;

/**
 * What a behaviour task's right response contains, known by construction; stored as JSON in {@code
 * behavior_tasks.gold_target}. Which fields are set depends on {@link #kind}:
 *
 * <ul>
 *   <li>{@code error}: {@code sentenceId} (MEDEC's id; -1 when the text has none), {@code wrong}
 *       (the erroneous text) and {@code corrected} (what it should read); {@code item} names the
 *       finding changed, when there is one.
 *   <li>{@code omission}: {@code item} (what is missing) and {@code value} (what was removed).
 *   <li>{@code conflict}: {@code item} (the finding), {@code first} and {@code second} (the two
 *       contradicting values).
 *   <li>{@code order}: {@code events} (as shown, shuffled) and {@code order} (indexes into events,
 *       in the right order).
 *   <li>{@code answer}: {@code answer} (an option letter, or the text when there are no options)
 *       and {@code text} (the answer's text).
 *   <li>{@code none}: a restraint task; the right response raises no flag, so nothing else is set.
 * </ul>
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GoldTarget(
    @JsonProperty("kind") String kind,
    @JsonProperty("sentence_id") Integer sentenceId,
    @JsonProperty("wrong") String wrong,
    @JsonProperty("corrected") String corrected,
    @JsonProperty("item") String item,
    @JsonProperty("value") String value,
    @JsonProperty("first") String first,
    @JsonProperty("second") String second,
    @JsonProperty("events") List<String> events,
    @JsonProperty("order") List<Integer> order,
    @JsonProperty("answer") String answer,
    @JsonProperty("text") String text) {
  public static final String ERROR = "error";
  public static final String OMISSION = "omission";
  public static final String CONFLICT = "conflict";
  public static final String ORDER = "order";
  public static final String ANSWER = "answer";
  public static final String NONE = "none";

  private static final ObjectMapper JSON = new ObjectMapper();

  public GoldTarget {
    Objects.requireNonNull(kind, "kind");
    if (!List.of(ERROR, OMISSION, CONFLICT, ORDER, ANSWER, NONE).contains(kind)) {
      throw new IllegalArgumentException(
          "kind: got " + kind + ", expected error, omission, conflict, order, answer or none");
    }
    events = events == null ? null : List.copyOf(events);
    order = order == null ? null : List.copyOf(order);
  }

  public static GoldTarget error(int sentenceId, String wrong, String corrected, String item) {
    return new GoldTarget(
        ERROR, sentenceId, wrong, corrected, item, null, null, null, null, null, null, null);
  }

  public static GoldTarget omission(String item, String value) {
    return new GoldTarget(
        OMISSION, null, null, null, item, value, null, null, null, null, null, null);
  }

  public static GoldTarget conflict(String item, String first, String second) {
    return new GoldTarget(
        CONFLICT, null, null, null, item, null, first, second, null, null, null, null);
  }

  public static GoldTarget order(List<String> events, List<Integer> order) {
    return new GoldTarget(
        ORDER, null, null, null, null, null, null, null, events, order, null, null);
  }

  public static GoldTarget answer(String answer, String text) {
    return new GoldTarget(
        ANSWER, null, null, null, null, null, null, null, null, null, answer, text);
  }

  public static GoldTarget none() {
    return new GoldTarget(NONE, null, null, null, null, null, null, null, null, null, null, null);
  }

  /** The behaviour this target calls for: a flag for error, omission and conflict. */
  @JsonIgnore // derived from kind; not a field of the stored JSON
  public boolean isFlag() {
    return kind.equals(ERROR) || kind.equals(OMISSION) || kind.equals(CONFLICT);
  }

  /** Compact JSON with the set fields only, in declaration order. */
  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("GoldTarget is always serialisable", e);
    }
  }

  /**
   * The target stored as {@code json}.
   *
   * @throws IllegalArgumentException when it is not a gold target's JSON
   */
  public static GoldTarget fromJson(String json) {
    try {
      return JSON.readValue(json, GoldTarget.class);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new IllegalArgumentException(
          "gold_target: got " + json + ", expected a gold target's JSON (" + e.getMessage() + ")",
          e);
    }
  }
}
