package io.actiongate.digest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.actiongate.avro.ActionProposal;
import io.actiongate.fixtures.Records;

class DigestsTest {

    private static final String DIGEST_FORMAT = "sha256:[0-9a-f]{64}";

    @Test
    void shouldHashTheCanonicalFormOfTheInput() {
        String json = "{\"b\": 2, \"a\": [1.0, \"x\"]}";

        assertThat(Digests.inputDigest(json))
                .matches(DIGEST_FORMAT)
                .isEqualTo("sha256:" + Digests.sha256Hex("{\"a\":[1,\"x\"],\"b\":2}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void shouldComputeTheWellKnownSha256() {
        // FIPS 180-2 example: SHA-256("abc")
        assertThat(Digests.sha256Hex("abc".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void shouldIgnoreKeyOrderAndWhitespaceInTheInputDigest() {
        String compact = "{\"channel\":\"ops\",\"meta\":{\"x\":1,\"y\":[true,null]},\"text\":\"hi\"}";
        String reordered = "{ \"text\" : \"hi\",\n\t\"meta\": {\"y\": [ true , null ], \"x\": 1.0},  \"channel\":\"ops\" }";

        assertThat(Digests.inputDigest(reordered)).isEqualTo(Digests.inputDigest(compact));
    }

    @Test
    void shouldChangeTheInputDigestWhenAnyValueChanges() {
        String base = "{\"channel\":\"ops\",\"meta\":{\"x\":1,\"y\":[true,null]},\"text\":\"hi\"}";
        List<String> variants = List.of(
                "{\"channel\":\"Ops\",\"meta\":{\"x\":1,\"y\":[true,null]},\"text\":\"hi\"}",
                "{\"channel\":\"ops\",\"meta\":{\"x\":2,\"y\":[true,null]},\"text\":\"hi\"}",
                "{\"channel\":\"ops\",\"meta\":{\"x\":1,\"y\":[false,null]},\"text\":\"hi\"}",
                "{\"channel\":\"ops\",\"meta\":{\"x\":1,\"y\":[null,true]},\"text\":\"hi\"}",
                "{\"channel\":\"ops\",\"meta\":{\"x\":1,\"y\":[true]},\"text\":\"hi\"}",
                "{\"channel\":\"ops\",\"meta\":{\"x\":\"1\",\"y\":[true,null]},\"text\":\"hi\"}",
                "{\"channel\":\"ops\",\"meta\":{\"X\":1,\"y\":[true,null]},\"text\":\"hi\"}",
                "{\"channel\":\"ops\",\"meta\":{\"x\":1,\"y\":[true,null]},\"text\":\"hi \"}",
                "{\"channel\":\"ops\",\"meta\":{\"x\":1,\"y\":[true,null]}}");
        String digest = Digests.inputDigest(base);

        for (String variant : variants) {
            assertThat(Digests.inputDigest(variant)).as(variant).isNotEqualTo(digest);
        }
    }

    @Test
    void shouldRejectInvalidInputJson() {
        assertThatThrownBy(() -> Digests.inputDigest("{\"a\":1,\"a\":2}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Digests.inputDigest("{")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldFormatTheActionDigestAsPrefixedLowercaseHex() {
        assertThat(Digests.actionDigest(FrozenAction.of(Records.proposal()))).matches(DIGEST_FORMAT);
    }

    @Test
    void shouldHashTheDocumentedFrozenActionObject() {
        ActionProposal p = Records.proposal();
        String expectedJson = "{\"attachments\":["
                + attachmentJson("uploads/a.txt") + "," + attachmentJson("uploads/b.txt") + "],"
                + "\"authorization_epoch\":11,"
                + "\"input\":{\"channel\":\"ops\",\"n\":1.5,\"text\":\"deploy \u00e9t\u00e9 done\"},"
                + "\"operation\":\"post\",\"org_id\":\"org-1\",\"principal_id\":\"user-7\",\"provider\":\"webhook\","
                + "\"summary\":\"Post a message to #ops\",\"task_id\":\"task-1\",\"task_version\":3,"
                + "\"tool_call_id\":\"call-1\",\"tool_name\":\"notify_team\"}";

        assertThat(Jcs.canonicalize(Digests.frozenActionJson(FrozenAction.of(p)))).isEqualTo(expectedJson);
        assertThat(Digests.actionDigest(FrozenAction.of(p)))
                .isEqualTo("sha256:" + Digests.sha256Hex(expectedJson.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void shouldHashTheSameGivenTheInputParsedAlreadyAndLeaveTheTreeAsItWas() {
        FrozenAction action = FrozenAction.of(Records.proposal());
        JsonNode parsed = Jcs.parse(action.inputJson());
        String before = parsed.toString();

        assertThat(Digests.actionDigest(action, parsed)).isEqualTo(Digests.actionDigest(action));
        assertThat(Digests.actionDigest(action, null)).isEqualTo(Digests.actionDigest(action));
        assertThat(parsed.toString()).isEqualTo(before);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"{}", "{\"b\":[1,2.50,1e3],\"a\":{\"z\":null,\"y\":true}}",
        "{\"input\":null,\"s\":\"\\\"input\\\":null \\u00e9\u20ac\"}", "{\"n\":-0,\"big\":123456789012345678901234}"})
    void shouldHashTheSameGivenTheCanonicalInputBytesComputedForTheInputDigest(String input) {
        FrozenAction action = FrozenAction.of(io.actiongate.avro.ActionProposal.newBuilder(Records.proposal())
                .setInputJson(input).setSummary("summary with \"input\":null in it").build());
        assertThat(Digests.actionDigestOfCanonicalInput(action, Jcs.canonicalBytes(input)))
                .isEqualTo(Digests.actionDigest(action));
    }

    private static String attachmentJson(String key) {
        return "{\"content_type\":\"text/plain\",\"object_key\":\"" + key + "\",\"owner_invocation_id\":\"inv-1\","
                + "\"sha256\":\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\",\"size_bytes\":4}";
    }

    static Stream<Arguments> frozenFieldChanges() {
        return Stream.of(
                change("task_id", b -> b.setTaskId("task-2")),
                change("tool_call_id", b -> b.setToolCallId("call-2")),
                change("task_version", b -> b.setTaskVersion(4)),
                change("org_id", b -> b.setOrgId("org-2")),
                change("principal_id", b -> b.setPrincipalId("user-8")),
                change("provider", b -> b.setProvider("smtp")),
                change("operation", b -> b.setOperation("send")),
                change("tool_name", b -> b.setToolName("notify_all")),
                change("input value", b -> b.setInputJson("{\"channel\":\"ops\",\"text\":\"deploy \u00e9t\u00e9 done\",\"n\":1.51}")),
                change("input member", b -> b.setInputJson("{\"channel\":\"ops\",\"text\":\"deploy \u00e9t\u00e9 done\"}")),
                change("summary", b -> b.setSummary("Post a message to #general")),
                change("attachment removed", b -> b.setAttachments(List.of(Records.attachment("uploads/a.txt")))),
                change("attachments reordered", b -> b.setAttachments(List.of(
                        Records.attachment("uploads/b.txt"), Records.attachment("uploads/a.txt")))),
                change("attachment hash", b -> b.setAttachments(List.of(Records.attachment("uploads/a.txt"),
                        io.actiongate.avro.Attachment.newBuilder(Records.attachment("uploads/b.txt"))
                                .setSha256("0".repeat(64)).build()))),
                change("authorization_epoch", b -> b.setAuthorizationEpoch(12)));
    }

    private static Arguments change(String name, UnaryOperator<ActionProposal.Builder> edit) {
        return Arguments.of(name, edit);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("frozenFieldChanges")
    void shouldChangeTheActionDigestWhenAFrozenFieldChanges(String field, UnaryOperator<ActionProposal.Builder> edit) {
        ActionProposal base = Records.proposal();
        ActionProposal changed = edit.apply(ActionProposal.newBuilder(base)).build();

        assertThat(Digests.actionDigest(FrozenAction.of(changed)))
                .isNotEqualTo(Digests.actionDigest(FrozenAction.of(base)));
    }

    @Test
    void shouldKeepTheActionDigestWhenOnlyNonFrozenFieldsChange() {
        ActionProposal base = Records.proposal();
        ActionProposal changed = ActionProposal.newBuilder(base)
                .setProfileId("profile-2")
                .setProposedAt(base.getProposedAt().plusSeconds(3600))
                .setClaimedAnnotations(Map.of("destructiveHint", "false"))
                .setToolSchemaHash("sha256:ff")
                .setInputDigest("sha256:other")
                .setIdempotencyKey(null)
                .setBusinessOperationId(null)
                .setOrigin(null)
                .setInputJson("{ \"n\" : 1.500, \"text\":\"deploy \\u00e9t\u00e9 done\", \"channel\":\"ops\"}")
                .build();

        assertThat(Digests.actionDigest(FrozenAction.of(changed)))
                .isEqualTo(Digests.actionDigest(FrozenAction.of(base)));
    }
}
