package dev.infuse.jobs.maporl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.llm.LlmSettings;
import dev.infuse.udfs.llm.RequestKeys;
import dev.infuse.udfs.prompt.PromptTemplate;
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
 * The {@code llm_judge} verifier's requests: the versioned rubric {@code maporl-judge} with the
 * question and one response, to the {@code llm} section's model, greedy. Like the reference's
 * verifier it sees only the question and the response, never the gold answer.
 */
final class JudgeRequests implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  static final StructType SCHEMA =
      new StructType()
          .add("episode_id", DataTypes.StringType, false)
          .add("agent_index", DataTypes.IntegerType, false)
          .add("call_key", DataTypes.StringType, false)
          .add("chat_request", DataTypes.StringType, false)
          .add("canonical_request", DataTypes.StringType, false);

  private final String templateJson;
  private final LlmSettings client;
  private final int maxTokens;

  JudgeRequests(PromptTemplate template, LlmConfig llm, int maxTokens) {
    this.templateJson = PromptLibrary.toJson(template);
    this.client = llm.client();
    this.maxTokens = maxTokens;
  }

  /** Input rows are {@code (episode_id, agent_index, state, response_text)}. */
  @Override
  public Iterator<Row> call(Iterator<Row> answers) throws JsonProcessingException {
    PromptTemplate template = PromptLibrary.fromJson(templateJson);
    List<Row> out = new ArrayList<>();
    while (answers.hasNext()) {
      Row answer = answers.next();
      Episode episode = Episode.fromJson(answer.getString(2));
      Map<String, String> vars =
          Map.of("question", episode.question(), "response", answer.getString(3));
      List<ChatMessage> messages =
          template.render(vars).stream().map(m -> new ChatMessage(m.role(), m.content())).toList();
      ChatRequest request =
          new ChatRequest(
              client.model(),
              messages,
              new GenerationParams(maxTokens, 0.0, 1.0, 1, List.of(), 0L, false, null),
              Map.of());
      String backend = client.backend().id();
      out.add(
          RowFactory.create(
              answer.getString(0),
              answer.getInt(1),
              RequestKeys.key(backend, request),
              JSON.writeValueAsString(request),
              RequestKeys.canonicalJson(backend, request)));
    }
    return out.iterator();
  }
}
