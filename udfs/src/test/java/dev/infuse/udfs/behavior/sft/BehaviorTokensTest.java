package dev.infuse.udfs.behavior.sft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BehaviorTokensTest {
  @Test
  void theDefaultsAreTheThreeAngleBracketTokens() {
    BehaviorTokens tokens = BehaviorTokens.defaults();
    assertThat(tokens.token(BehaviorType.REACTIVE)).isEqualTo("<reactive>");
    assertThat(tokens.token(BehaviorType.PROACTIVE)).isEqualTo("<proactive>");
    assertThat(tokens.token(BehaviorType.RESTRAINT)).isEqualTo("<restraint>");
  }

  @Test
  void validationErrorsNameTheKeyAndTheValue() {
    assertThatThrownBy(
            () ->
                BehaviorTokens.of(Map.of("reactive", "<r>", "proactiv", "<p>", "restraint", "<s>")))
        .hasMessageContaining("tokens.proactiv")
        .hasMessageContaining("proactive");
    assertThatThrownBy(
            () ->
                BehaviorTokens.of(
                    Map.of("reactive", "<r>", "proactive", "a b", "restraint", "<s>")))
        .hasMessageContaining("tokens.proactive: got 'a b'");
    assertThatThrownBy(() -> BehaviorTokens.of(Map.of("reactive", "<r>", "proactive", "<p>")))
        .hasMessageContaining("tokens.restraint: missing");
    assertThatThrownBy(
            () ->
                BehaviorTokens.of(
                    Map.of("reactive", "<x>", "proactive", "<x>", "restraint", "<s>")))
        .hasMessageContaining("already the token of another type");
  }
}
