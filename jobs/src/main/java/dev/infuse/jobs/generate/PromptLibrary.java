package dev.infuse.jobs.generate;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseHome;
import dev.infuse.udfs.common.Names;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The prompt templates of a run, read on the driver from {@code run.prompts_dir} (a directory or
 * any Hadoop URI). For each id the highest version wins. Templates travel to executors as JSON
 * text, which is small, and are parsed there once per task.
 */
public final class PromptLibrary {
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, PromptTemplate> latest;

  private PromptLibrary(Map<String, PromptTemplate> latest) {
    this.latest = latest;
  }

  public static PromptLibrary load(Configuration hadoop, String promptsDir) {
    String dir =
        promptsDir.contains("://") || promptsDir.startsWith("/")
            ? promptsDir
            : InfuseHome.resolve(promptsDir).toString();
    Map<String, PromptTemplate> latest = new TreeMap<>();
    try {
      Path path = new Path(dir);
      FileSystem fs = path.getFileSystem(hadoop);
      if (!fs.exists(path)) {
        throw new ConfigException(
            List.of("run.prompts_dir: got " + dir + ", expected a directory of prompt templates"));
      }
      for (FileStatus file : fs.listStatus(path)) {
        String name = file.getPath().getName();
        if (!file.isFile() || !(name.endsWith(".yaml") || name.endsWith(".yml"))) {
          continue;
        }
        try (InputStream in = fs.open(file.getPath())) {
          PromptTemplate template = YAML.readValue(in, PromptTemplate.class);
          List<String> problems = template.problems();
          if (!problems.isEmpty()) {
            throw new ConfigException(List.of(file.getPath() + ": " + String.join("; ", problems)));
          }
          latest.merge(template.id(), template, (a, b) -> a.version() >= b.version() ? a : b);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read prompt templates from " + dir, e);
    }
    return new PromptLibrary(latest);
  }

  /** The latest version of a template; an unknown id names the nearest one. */
  public PromptTemplate get(String id) {
    PromptTemplate template = latest.get(id);
    if (template == null) {
      String hint =
          Names.nearest(id, latest.keySet()).map(n -> "; did you mean '" + n + "'?").orElse("");
      throw new ConfigException(
          List.of(
              "prompt template '" + id + "' not found" + hint + " Templates: " + latest.keySet()));
    }
    return template;
  }

  /** A template as JSON text, to ship to executors. */
  public static String toJson(PromptTemplate template) {
    try {
      return JSON.writeValueAsString(template);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static PromptTemplate fromJson(String json) {
    try {
      return JSON.readValue(json, PromptTemplate.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
