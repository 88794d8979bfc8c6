package dev.infuse.jobs.generate;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.common.EnumNames;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code gen_qa} section.
 *
 * @param unit generate per {@code chunk} or per {@code document}
 * @param pairsPerUnit QA pairs asked for per unit
 * @param maxUnits the most units to generate for, in a stable order; 0 for all
 * @param corpus only this corpus; null for all
 * @param targetTokens generate in waves until the unique synthetic tokens of the run's documents
 *     and generator in synthetic_qa (each distinct pair counted as trained, "Question: q\nAnswer:
 *     a", under the default tokenizer) reach this; 0 for no target
 */
public record GenQaConfig(
    Unit unit, int pairsPerUnit, int maxUnits, String corpus, long targetTokens)
    implements ConfigSection {

  /** What one generation call covers. */
  public enum Unit {
    /** A row of {@code chunks}. */
    CHUNK,
    /** A whole row of {@code documents}. */
    DOCUMENT;

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
    public static Unit fromName(String name) {
      return EnumNames.parse(Unit.class, name);
    }
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (unit == null) {
      problems.add("unit: got nothing, expected chunk or document");
    }
    if (targetTokens < 0) {
      problems.add("target_tokens: got " + targetTokens + ", expected an integer >= 0 (0 for off)");
    }
    if (pairsPerUnit < 1) {
      problems.add("pairs_per_unit: got " + pairsPerUnit + ", expected an integer >= 1");
    }
    return problems;
  }
}
