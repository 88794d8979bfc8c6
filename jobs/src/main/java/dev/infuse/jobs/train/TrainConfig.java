package dev.infuse.jobs.train;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.common.EnumNames;
import dev.infuse.udfs.lm.train.TrainingConfig;
import dev.infuse.udfs.model.Devices;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code train} section: causal-LM training on text in the warehouse or on packed token shards.
 * See defaults.yaml for each key.
 *
 * @param sources tables whose text is trained on: documents, synthetic_docs, synthetic_qa
 * @param shards a directory of Parquet shards with {@code input_ids} (and optionally {@code
 *     document_lengths}, {@code loss_mask}); when set, {@code sources} is ignored
 * @param modelDir where the final model and its checkpoints go: a local or FUSE-mounted path
 * @param initFrom a model directory to continue training from; null starts from a seeded init
 * @param training the optimiser, schedule and checkpoints ({@code steps}, {@code batch_size},
 *     AdamW's keys, {@code checkpoint_every}, {@code mask_document_boundaries}): its keys sit
 *     directly under {@code train}; its data-order seed is {@code run.seed}, set by the job
 * @param lossOn {@code all} tokens, or {@code answer} tokens only (synthetic_qa answers; SFT)
 */
public record TrainConfig(
    List<String> sources,
    String shards,
    String corpus,
    String modelDir,
    String initFrom,
    String tokenizer,
    int layers,
    int dModel,
    int heads,
    int contextLength,
    int sequenceLength,
    @JsonUnwrapped @JsonIgnoreProperties("seed") TrainingConfig training,
    LossOn lossOn,
    String device)
    implements ConfigSection {

  /** The tables {@code train.sources} may name. */
  public static final List<String> SOURCES = List.of("documents", "synthetic_docs", "synthetic_qa");

  /** Which tokens the loss is taken on. */
  public enum LossOn {
    /** Next-token loss on every token. */
    ALL,
    /** Only on synthetic_qa answers and the shards' answer mask. */
    ANSWER;

    @JsonValue
    public String id() {
      return EnumNames.id(this);
    }

    /** As spelled in config, so messages read like the YAML. */
    @Override
    public String toString() {
      return id();
    }

    @JsonCreator
    public static LossOn fromName(String name) {
      return EnumNames.parse(LossOn.class, name);
    }
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    for (String source : sources) {
      if (!SOURCES.contains(source)) {
        problems.add(
            "sources: got " + source + ", expected documents, synthetic_docs or synthetic_qa");
      }
    }
    if (sources.isEmpty() && shards == null) {
      problems.add("sources: got [], expected at least one table, or train.shards");
    }
    if (modelDir == null || modelDir.isBlank()) {
      problems.add("model_dir: got nothing, expected a directory for the model");
    }
    if (lossOn == null) {
      problems.add("loss_on: got nothing, expected all or answer");
    }
    if (sequenceLength < 2 || sequenceLength > contextLength) {
      problems.add(
          "sequence_length: got "
              + sequenceLength
              + ", expected 2..context_length ("
              + contextLength
              + ")");
    }
    String deviceProblem = Devices.problem(device);
    if (deviceProblem != null) {
      problems.add(deviceProblem);
    }
    return problems;
  }
}
