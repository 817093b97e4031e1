package io.actiongate.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class ActionKeyTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "task-1", "call_01.ABC:xyz", "0", "-", "..", "a:b:c"})
    void shouldAcceptIdsOfTheAllowedAlphabet(String id) {
        assertThat(ActionKey.isValidId(id)).isTrue();
        assertThat(new ActionKey(id, id).toString()).isEqualTo(id + "/" + id);
    }

    @Test
    void shouldAcceptIdsOf128CharactersAndRejectLongerOnes() {
        assertThat(ActionKey.isValidId("x".repeat(128))).isTrue();
        assertThat(ActionKey.isValidId("x".repeat(129))).isFalse();
        assertThatThrownBy(() -> new ActionKey("x".repeat(129), "call")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("task_id");
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"a/b", "a b", " a", "a\n", "\u00e9t\u00e9", "caf\u00e9", "\ud83d\ude00", "a+b", "a%2Fb",
        "a\\b", "\u0661", "\uff21"})
    void shouldRejectIdsOutsideTheAlphabet(String id) {
        assertThat(ActionKey.isValidId(id)).isFalse();
        assertThatThrownBy(() -> new ActionKey("task", id)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tool_call_id");
        assertThatThrownBy(() -> new ActionKey(id, "call")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("task_id");
    }

    @Test
    void shouldParseWhatItPrints() {
        ActionKey key = new ActionKey("task-1", "call:2.b");

        assertThat(ActionKey.parse(key.toString())).isEqualTo(key);
        assertThat(ActionKey.tryParse(key.toString())).contains(key);
        assertThat(ActionKey.parse("t/c").taskId()).isEqualTo("t");
        assertThat(ActionKey.parse("t/c").toolCallId()).isEqualTo("c");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "/", "task", "task/", "/call", "task/call/extra", "task//call", "ta sk/call",
        "task/c\u00e4ll", "task\\call"})
    void shouldRejectMalformedKeys(String key) {
        assertThat(ActionKey.tryParse(key)).isEmpty();
        assertThatThrownBy(() -> ActionKey.parse(key)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRejectAKeyWithTooLongParts() {
        String key = "t".repeat(128) + "/" + "c".repeat(129);

        assertThat(ActionKey.tryParse(key)).isEmpty();
        assertThat(ActionKey.tryParse("t".repeat(128) + "/" + "c".repeat(128))).isPresent();
    }

    @Test
    void shouldTreatNullAsNoKey() {
        assertThat(ActionKey.tryParse(null)).isEmpty();
        assertThatThrownBy(() -> ActionKey.parse(null)).isInstanceOf(NullPointerException.class);
        assertThat(ActionKey.isValid("t", null)).isFalse();
        assertThat(ActionKey.isValid("t", "c")).isTrue();
    }

    @Test
    void shouldCompareByBothIds() {
        assertThat(new ActionKey("t", "c")).isEqualTo(ActionKey.parse("t/c")).isNotEqualTo(new ActionKey("c", "t"));
    }
}
