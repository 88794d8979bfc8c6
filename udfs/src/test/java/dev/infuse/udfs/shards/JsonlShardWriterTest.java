package dev.infuse.udfs.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonlShardWriterTest {
  @TempDir Path dir;

  @Test
  void writesOneObjectPerLineAndPublishesWithChecksum() throws IOException {
    Path path = dir.resolve("shard-00000.jsonl");
    ShardFile file;
    try (JsonlShardWriter writer = new JsonlShardWriter(path)) {
      writer.write("doc-1", "synthetic_qa", "Line one\nline \"two\" — ünïcode");
      writer.write("doc-2", null, "plain");
      assertThat(path).doesNotExist();
      file = writer.commit();
      assertThat(writer.records()).isEqualTo(2);
    }

    List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
    assertThat(lines).hasSize(2);
    ObjectMapper json = new ObjectMapper();
    JsonNode first = json.readTree(lines.get(0));
    assertThat(first.get("text").asText()).isEqualTo("Line one\nline \"two\" — ünïcode");
    assertThat(first.get("source").asText()).isEqualTo("synthetic_qa");
    assertThat(first.get("id").asText()).isEqualTo("doc-1");
    assertThat(json.readTree(lines.get(1)).get("source").isNull()).isTrue();
    assertThat(lines).allSatisfy(line -> assertThat(line).startsWith("{\"text\":"));

    assertThat(file.path()).isEqualTo(path.toAbsolutePath().normalize());
    assertThat(file.bytes()).isEqualTo(Files.size(path));
    assertThat(file.sha256()).isEqualTo(MegatronIndexedDatasetWriterTest.sha256(path));
    assertThat(dir).isDirectoryNotContaining(p -> p.getFileName().toString().startsWith("."));
  }

  @Test
  void closingWithoutCommitKeepsTheOldShardAndLeavesNoTempFile() throws IOException {
    Path path = dir.resolve("shard.jsonl");
    Files.writeString(path, "old\n");
    try (JsonlShardWriter writer = new JsonlShardWriter(path)) {
      writer.write("a", "s", "new");
      assertThatThrownBy(() -> writer.write(null, "s", "x"))
          .hasMessageContaining("id and text are required");
    }
    assertThat(Files.readString(path)).isEqualTo("old\n");
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(path);
    }
  }
}
