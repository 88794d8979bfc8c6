package dev.infuse.jobs.behavior;

import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.score.BehaviorClassifier;
import dev.infuse.udfs.behavior.score.BehaviorTokenClassifier;
import dev.infuse.udfs.behavior.score.Classification;
import dev.infuse.udfs.behavior.score.ContentScorer;
import dev.infuse.udfs.behavior.score.RuleBehaviorClassifier;
import dev.infuse.udfs.behavior.sft.BehaviorTokens;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Reads the behaviour each response exhibited, on an executor: its leading behavioural token when
 * it has one, else the rule-based classifier; and whether a response that raised a flag (or
 * answered) named what the gold target holds. A judged response ({@code judged} not null) takes the
 * judge's reading instead of the rule's.
 *
 * <p>Input rows, by name: task_id, category, source, gold_behavior, gold_target, response,
 * call_key, judged (a behaviour name, or null).
 */
final class BehaviorReading implements FlatMapFunction<Iterator<Row>, Row>, Serializable {
  private static final long serialVersionUID = 1L;

  /** What a response shows: the behaviour, how it was read, and its content verdict. */
  static final StructType OUTPUT =
      new StructType()
          .add("task_id", DataTypes.StringType, false)
          .add("predicted_behavior", DataTypes.StringType, false)
          .add("classified_by", DataTypes.StringType, false)
          .add("content_correct", DataTypes.BooleanType, true);

  private final Map<String, String> tokens;
  private final String judgeName;

  /**
   * @param tokens the behavioural token of each type, by type name
   * @param judgeName the judge's id@version, recorded for judged responses; null without a judge
   */
  BehaviorReading(Map<String, String> tokens, String judgeName) {
    this.tokens = Map.copyOf(tokens);
    this.judgeName = judgeName;
  }

  @Override
  public Iterator<Row> call(Iterator<Row> rows) {
    BehaviorClassifier token = new BehaviorTokenClassifier(BehaviorTokens.of(tokens));
    BehaviorClassifier rule = new RuleBehaviorClassifier();
    List<Row> out = new ArrayList<>();
    while (rows.hasNext()) {
      Row row = rows.next();
      String response = row.getAs("response");
      Classification read = token.classify(response);
      String by = name(token);
      if (!read.present()) {
        String judged = row.getAs("judged");
        if (judged != null) {
          read = new Classification(BehaviorType.fromName(judged), "judge");
          by = judgeName;
        } else {
          read = rule.classify(response);
          by = name(rule);
        }
      }
      GoldTarget gold = GoldTarget.fromJson(row.getAs("gold_target"));
      out.add(
          RowFactory.create(
              row.<String>getAs("task_id"),
              read.behavior().id(),
              by,
              ContentScorer.contentCorrect(gold, response)));
    }
    return out.iterator();
  }

  private static String name(BehaviorClassifier classifier) {
    return classifier.id() + "@" + classifier.version();
  }
}
