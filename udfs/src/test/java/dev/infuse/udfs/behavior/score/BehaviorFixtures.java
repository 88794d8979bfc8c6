package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.RepoPaths;
import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.Turn;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Tasks and the shipped behaviour templates, for the behaviour tests. */
public final class BehaviorFixtures {
  private BehaviorFixtures() {}

  /** A task of one note turn. */
  public static BehaviorTask task(
      String category, BehaviorType gold, String note, String query, GoldTarget target) {
    return task(category, gold, List.of(new Turn(Turn.NOTE, note)), query, target);
  }

  public static BehaviorTask task(
      String category, BehaviorType gold, List<Turn> turns, String query, GoldTarget target) {
    return new BehaviorTask(
        "t-" + category,
        category,
        gold,
        "medec",
        "ms-val-0",
        turns,
        query,
        gold,
        target,
        Map.of("changed", "SECRET-CONSTRUCTION"),
        null,
        null,
        7L);
  }

  /**
   * A shipped template, read by hand (udfs has no YAML parser): each "- role: X" followed by a
   * "content: |-" block indented six spaces.
   */
  public static PromptTemplate template(String file) {
    try {
      List<String> lines = Files.readAllLines(RepoPaths.repoRoot().resolve("conf/prompts/" + file));
      String yaml = String.join("\n", lines);
      Matcher id = Pattern.compile("(?m)^id:\\s*(\\S+)").matcher(yaml);
      Matcher version = Pattern.compile("(?m)^version:\\s*(\\d+)").matcher(yaml);
      if (!id.find() || !version.find()) {
        throw new IllegalStateException(file + ": no id or version");
      }
      List<PromptTemplate.Message> messages = new ArrayList<>();
      String role = null;
      List<String> content = null;
      for (String line : lines) {
        Matcher roleLine = Pattern.compile("^\\s*- role:\\s*(\\w+)").matcher(line);
        if (roleLine.find()) {
          if (content != null) {
            messages.add(new PromptTemplate.Message(role, String.join("\n", content).strip()));
          }
          role = roleLine.group(1);
          content = null;
        } else if (line.strip().equals("content: |-")) {
          content = new ArrayList<>();
        } else if (content != null) {
          content.add(line.isBlank() ? "" : line.substring(Math.min(6, line.length())));
        }
      }
      if (content != null) {
        messages.add(new PromptTemplate.Message(role, String.join("\n", content).strip()));
      }
      return new PromptTemplate(id.group(1), Integer.parseInt(version.group(1)), "", messages);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
