package dev.infuse.udfs.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.common.Keys;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenizersTest {
  @TempDir Path dir;

  @Test
  void theDefaultIsBuiltOnce() {
    assertThat(Tokenizers.defaultTokenizer()).isSameAs(Tokenizers.defaultTokenizer());
    assertThat(Tokenizers.forSpec(Tokenizers.DEFAULT_SPEC)).isSameAs(Tokenizers.defaultTokenizer());
    assertThat(Tokenizers.forSpec(" default ")).isSameAs(Tokenizers.defaultTokenizer());
  }

  @Test
  void fromBytesCachesBySha256() throws IOException {
    byte[] json = defaultJson();
    TextTokenizer first = Tokenizers.fromBytes(json);
    TextTokenizer second = Tokenizers.fromBytes(json.clone());
    assertThat(second).isSameAs(first);
    String sha = HexFormat.of().formatHex(Keys.sha256(json));
    assertThat(first.id()).isEqualTo("tokenizer.json@" + sha.substring(0, 12));
    assertThat(first.count("Hello world.")).isEqualTo(3);
  }

  @Test
  void differentBytesAreADifferentTokenizer() throws IOException {
    byte[] json = defaultJson();
    String text = new String(json, StandardCharsets.UTF_8);
    byte[] reformatted = (text + "\n").getBytes(StandardCharsets.UTF_8);
    TextTokenizer original = Tokenizers.fromBytes(json);
    TextTokenizer other = Tokenizers.fromBytes(reformatted);
    assertThat(other).isNotSameAs(original);
    assertThat(other.id()).isNotEqualTo(original.id());
  }

  @Test
  void forSpecReadsAFileOrADirectoryHoldingOne() throws IOException {
    Path file = dir.resolve("tokenizer.json");
    Files.write(file, defaultJson());
    TextTokenizer fromFile = Tokenizers.forSpec(file.toString());
    assertThat(fromFile.id()).startsWith("tokenizer.json@");
    assertThat(Tokenizers.forSpec(dir.toString())).isSameAs(fromFile);
    String article = QualityArticles.load().get(1);
    assertThat(fromFile.count(article)).isEqualTo(Tokenizers.defaultTokenizer().count(article));
  }

  @Test
  void forSpecNamesAMissingPath() {
    Path missing = dir.resolve("nowhere/tokenizer.json");
    assertThatThrownBy(() -> Tokenizers.forSpec(missing.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("no file");
  }

  @Test
  void forSpecNamesAFileThatIsNotATokenizer() throws IOException {
    Path file = dir.resolve("notes.json");
    Files.writeString(file, "{\"model\": 1}");
    assertThatThrownBy(() -> Tokenizers.forSpec(file.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("not a Hugging Face tokenizer.json");
  }

  @Test
  void forSpecRejectsAnEmptySpec() {
    assertThatThrownBy(() -> Tokenizers.forSpec(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tokenizer: empty");
  }

  @Test
  void closingASharedTokenizerLeavesItUsable() {
    TextTokenizer shared = Tokenizers.defaultTokenizer();
    shared.close();
    assertThat(Tokenizers.defaultTokenizer().count("Hello world.")).isEqualTo(3);
  }

  private static byte[] defaultJson() throws IOException {
    try (InputStream in =
        TokenizersTest.class.getClassLoader().getResourceAsStream(Tokenizers.DEFAULT_RESOURCE)) {
      return in.readAllBytes();
    }
  }
}
