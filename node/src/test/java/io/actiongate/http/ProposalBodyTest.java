package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.actiongate.digest.Digests;

class ProposalBodyTest {

    static final String VALID = "{\"task_id\":\"T-1\",\"tool_call_id\":\"c-1\",\"provider\":\"webhook\","
            + "\"operation\":\"send_email\",\"tool_name\":\"send_email\",\"tool_schema_hash\":\"sha256:schema-v1\","
            + "\"input\":{\"to\":\"ops@example.com\",\"amount\":1.0,\"\uD83D\uDE00\":\"x\",\"a\":\"y\"},"
            + "\"summary\":\"Email ops\"}";

    @Test
    void shouldComputeTheRfc8785DigestOfTheInputItself() throws Exception {
        ProposalBody.Parsed parsed = parse(VALID);
        // JCS: 1.0 is written 1, keys sorted by UTF-16 code units (the emoji's surrogates sort after "to")
        assertThat(parsed.inputDigest()).isEqualTo(Digests.PREFIX + Digests.sha256Hex(
                "{\"a\":\"y\",\"amount\":1,\"to\":\"ops@example.com\",\"\uD83D\uDE00\":\"x\"}"
                        .getBytes(StandardCharsets.UTF_8)));
        assertThat(parsed.taskVersion()).isEmpty();
        assertThat(parse(VALID.replace("\"summary\"", "\"input_digest\":\"" + parsed.inputDigest()
                + "\",\"task_version\":3,\"summary\"")).taskVersion()).hasValue(3);
    }

    @Test
    void shouldRefuseAMismatchedDigestNamingBoth() {
        String zeros = "sha256:" + "0".repeat(64);
        assertThatThrownBy(() -> parse(VALID.replace("\"summary\"", "\"input_digest\":\"" + zeros + "\",\"summary\"")))
                .isInstanceOfSatisfying(ProposalBodyException.class, e -> {
                    assertThat(e.reason()).isEqualTo(ProposalRefusal.DIGEST_MISMATCH);
                    assertThat(e.offeredDigest()).isEqualTo(zeros);
                    assertThat(e.computedDigest()).startsWith("sha256:").hasSize(71);
                });
        // an offered value that is no digest is not echoed: it is input text, and might be anything
        assertThatThrownBy(() -> parse(VALID.replace("\"summary\"", "\"input_digest\":\"sha256:00\",\"summary\"")))
                .isInstanceOfSatisfying(ProposalBodyException.class, e -> {
                    assertThat(e.reason()).isEqualTo(ProposalRefusal.DIGEST_MISMATCH);
                    assertThat(e.offeredDigest()).isNull();
                    assertThat(e.getMessage()).doesNotContain("sha256:00");
                });
    }

    @Test
    void shouldRefuseEachMalformedBodyWithItsReasonCode() {
        refused("[1]", ProposalRefusal.INVALID_JSON, null);
        refused("{\"task_id\":", ProposalRefusal.INVALID_JSON, null);
        refused(VALID + "{}", ProposalRefusal.INVALID_JSON, null);
        refused(VALID.replace("\"summary\"", "\"task_id\":\"T-2\",\"summary\""), ProposalRefusal.DUPLICATE_KEY, null);
        refused(VALID.replace("\"a\":\"y\"", "\"a\":\"y\",\"a\":\"z\""), ProposalRefusal.DUPLICATE_KEY, null);
        // an unknown member is not named (its name is input): the object holding it and where it is are
        refused(VALID.replace("\"summary\"", "\"org_id\":\"evil\",\"summary\""), ProposalRefusal.UNKNOWN_MEMBER,
                null);
        refused(VALID.replace("\"summary\"", "\"origin\":{\"conversation_id\":\"c\",\"turn_id\":\"t\",\"x\":1},"
                + "\"summary\""), ProposalRefusal.UNKNOWN_MEMBER, "origin");
        refused(VALID.replace("{\"to\":\"ops@example.com\",\"amount\":1.0,\"\uD83D\uDE00\":\"x\",\"a\":\"y\"}",
                "\"text\""), ProposalRefusal.INPUT_NOT_OBJECT, "input");
        refused(VALID.replace("\"T-1\"", "\"T 1\""), ProposalRefusal.INVALID_ID, "task_id");
        refused(VALID.replace("\"c-1\"", "\"c/1\""), ProposalRefusal.INVALID_ID, "tool_call_id");
        refused(VALID.replace("\"summary\":\"Email ops\"", "\"summary\":\" \""), ProposalRefusal.MISSING_MEMBER,
                "summary");
        refused(VALID.replace("\"provider\":\"webhook\",", ""), ProposalRefusal.MISSING_MEMBER, "provider");
        refused(VALID.replace("\"summary\"", "\"task_version\":-1,\"summary\""), ProposalRefusal.INVALID_MEMBER,
                "task_version");
        refused(VALID.replace("\"summary\"", "\"attachments\":[{\"object_key\":\"k\"}],\"summary\""),
                ProposalRefusal.INVALID_MEMBER, "attachments[0].size_bytes");
    }

    @Test
    void shouldPlaceAnUnknownMemberWithoutNamingIt() {
        String body = VALID.replace("\"summary\"", "\"org_id\":\"evil\",\"summary\"");
        // offsets count bytes: VALID holds an emoji (2 chars, 4 bytes) before the member
        int at = body.substring(0, body.indexOf("\"org_id\"")).getBytes(StandardCharsets.UTF_8).length;
        assertThatThrownBy(() -> parse(body)).isInstanceOfSatisfying(ProposalBodyException.class, e -> {
            assertThat(e.getMessage()).doesNotContain("org_id").contains("unknown member at line 1, column "
                    + (at + 1) + " (offset " + at + ") of the body");
            assertThat(e.location().getByteOffset()).isEqualTo(at);
        });
        String nested = VALID.replace("\"summary\"", "\"attachments\":[{\"object_key\":\"k\",\"zz\":1}],\"summary\"");
        assertThatThrownBy(() -> parse(nested)).isInstanceOfSatisfying(ProposalBodyException.class, e -> {
            assertThat(e.member()).isEqualTo("attachments[0]");
            assertThat(e.getMessage()).doesNotContain("zz").contains("offset "
                    + nested.substring(0, nested.indexOf("\"zz\"")).getBytes(StandardCharsets.UTF_8).length);
        });
    }

    private static void refused(String body, ProposalRefusal reason, String member) {
        assertThatThrownBy(() -> parse(body)).as(body).isInstanceOfSatisfying(ProposalBodyException.class, e -> {
            assertThat(e.reason()).isEqualTo(reason);
            assertThat(e.member()).isEqualTo(member);
        });
    }

    private static ProposalBody.Parsed parse(String body) throws ProposalBodyException {
        return ProposalBody.parse(body.getBytes(StandardCharsets.UTF_8));
    }
}
