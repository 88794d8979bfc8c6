package dev.infuse.jobs.generate;

import org.apache.spark.sql.Row;

/**
 * Reading a response row of {@code LlmCallRunner.responses}: whether the call succeeded, where it came
 * from (for quarantine), and why it failed. One wording for every generation job.
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
}
