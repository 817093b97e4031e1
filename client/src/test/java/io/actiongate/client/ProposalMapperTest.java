package io.actiongate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.avro.ActionProposal;
import io.actiongate.digest.Digests;

class ProposalMapperTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void shouldComputeTheSameDigestForTextAndTreeInputWhateverTheWhiteSpaceAndOrder() throws Exception {
        ActionProposal fromText = ProposalMapper.toAvro(GateFixture.send("c-1",
                "{ \"to\" : \"ops@example.com\",\n \"body\": \"disk is full\" }").build(), NOW);
        ActionProposal fromTree = ProposalMapper.toAvro(GateFixture.send("c-1", "{}")
                .input(new ObjectMapper().readTree("{\"body\":\"disk is full\",\"to\":\"ops@example.com\"}"))
                .build(), NOW);
        assertThat(fromText.getInputJson()).isEqualTo("{\"to\":\"ops@example.com\",\"body\":\"disk is full\"}");
        assertThat(fromText.getInputDigest()).isEqualTo(Digests.inputDigest(fromText.getInputJson()))
                .isEqualTo(fromTree.getInputDigest());
        assertThat(fromText.getProposedAt()).isEqualTo(NOW);
        assertThat(fromText.getIdempotencyKey()).isNull();
    }

    @Test
    void shouldNameTheFieldAtFault() {
        assertThatThrownBy(() -> ProposalMapper.toAvro(GateFixture.send("c-1", "[1]").build(), NOW))
                .isInstanceOfSatisfying(InvalidProposalException.class, e -> assertThat(e.field()).isEqualTo("input"));
        assertThatThrownBy(() -> GateFixture.send("c-1", "{not json"))
                .isInstanceOfSatisfying(InvalidProposalException.class, e -> assertThat(e.field()).isEqualTo("input"));
        assertThatThrownBy(() -> ProposalMapper.toAvro(GateFixture.send("c-1", "{}").identity("acme", null).build(),
                NOW)).isInstanceOfSatisfying(InvalidProposalException.class,
                        e -> assertThat(e.field()).isEqualTo("principal_id"));
        assertThatThrownBy(() -> ProposalMapper.toAvro(GateFixture.send("c-1", "{}").summary("x".repeat(281))
                .build(), NOW)).isInstanceOfSatisfying(InvalidProposalException.class,
                        e -> assertThat(e.field()).isEqualTo("summary"));
        assertThatThrownBy(() -> ProposalMapper.toAvro(GateFixture.send("c-1", "{}").idempotencyKey(" ").build(),
                NOW)).isInstanceOfSatisfying(InvalidProposalException.class,
                        e -> assertThat(e.field()).isEqualTo("idempotency_key"));
        assertThatThrownBy(() -> ProposalMapper.toAvro(ProposalRequest.builder().action("T-1", "c-1").build(), NOW))
                .isInstanceOfSatisfying(InvalidProposalException.class,
                        e -> assertThat(e.field()).isEqualTo("task_version"));
    }

    @Test
    void shouldCarryAttachmentsAndRefuseAnIncompleteOne() {
        ActionProposal proposal = ProposalMapper.toAvro(GateFixture.send("c-1", "{}").attachments(java.util.List.of(
                new ProposalRequest.Attachment("att/T-1/c-1/a.pdf", "ab".repeat(32), 12, "application/pdf", "inv-1")))
                .build(), NOW);
        assertThat(proposal.getAttachments()).singleElement().satisfies(a -> {
            assertThat(a.getObjectKey()).isEqualTo("att/T-1/c-1/a.pdf");
            assertThat(a.getSizeBytes()).isEqualTo(12);
        });
        assertThatThrownBy(() -> ProposalMapper.toAvro(GateFixture.send("c-1", "{}").attachments(java.util.List.of(
                new ProposalRequest.Attachment(null, "ab", 1, "text/plain", "inv-1"))).build(), NOW))
                .isInstanceOfSatisfying(InvalidProposalException.class,
                        e -> assertThat(e.field()).isEqualTo("attachments"));
    }
}
