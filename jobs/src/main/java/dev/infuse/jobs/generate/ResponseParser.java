package dev.infuse.jobs.generate;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;

/**
 * The loop every generation job runs over its responses, on the executors: a call that failed for
 * good becomes a row bound for quarantine, holding its canonical request; a succeeded one is parsed
 * by the job into output rows and rejections that keep the raw text and the reason.
 */
abstract class ResponseParser implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;

  @Override
  public final Iterator<Row> call(Iterator<Row> responses) {
    List<Row> rows = new ArrayList<>();
    while (responses.hasNext()) {
      Row response = responses.next();
      String location = Responses.location(response);
      if (Responses.succeeded(response)) {
        parse(response, response.getAs("response_text"), location, rows);
      } else {
        rows.add(
            reject(
                response,
                location,
                response.getAs("canonical_request"),
                Responses.failedCallReason(response)));
      }
    }
    return rows.iterator();
  }

  /** Adds the output rows, and the rejections, of one succeeded response's {@code text}. */
  abstract void parse(Row response, String text, String location, List<Row> rows);

  /** A row bound for quarantine: where it came from, its payload and why. */
  abstract Row reject(Row response, String location, String payload, String reason);
}
