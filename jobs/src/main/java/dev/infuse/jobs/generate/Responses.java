package dev.infuse.jobs.generate;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Reading a response row of {@code LlmCallRunner.responses}: whether the call succeeded, where it
 * came from (for quarantine), and why it failed. One wording for every generation job.
 */
final class Responses {
  private Responses() {}

  static boolean succeeded(Row response) {
    return "succeeded".equals(response.getAs("status"));
  }

  /** {@code unit <unit_id>, call <call_key>}: the quarantine location of a response. */
  static String location(Row response) {
    return "unit " + response.getAs("unit_id") + ", call " + response.getAs("call_key");
  }

  static String failedCallReason(Row response) {
    return "llm call failed (retried on the next run): " + response.getAs("error");
  }

  /**
   * The columns every parsed-output row ends with: its provenance (generator, template, seed, call
   * key), set on output rows, and its rejection (location, payload, reason), set on rows bound for
   * quarantine.
   */
  static StructType withOutputTail(StructType head) {
    return head.add("generator", DataTypes.StringType, true)
        .add("template_id", DataTypes.StringType, true)
        .add("template_version", DataTypes.IntegerType, true)
        .add("seed", DataTypes.LongType, true)
        .add("llm_call_key", DataTypes.StringType, true)
        .add("location", DataTypes.StringType, true)
        .add("payload", DataTypes.StringType, true)
        .add("reason", DataTypes.StringType, true);
  }
}
