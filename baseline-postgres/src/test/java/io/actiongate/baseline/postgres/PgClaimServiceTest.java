package io.actiongate.baseline.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The claim service's offset bookkeeping (at least once), without PostgreSQL or a broker. */
class PgClaimServiceTest {

    @Test
    void shouldCommitBelowTheLowestRecordNotDone() {
        PgClaimService.Offsets offsets = new PgClaimService.Offsets();
        offsets.submitted(10);
        offsets.submitted(11);
        offsets.submitted(12);
        offsets.done(11);
        assertThat(offsets.commitPosition()).isEqualTo(10);
        offsets.done(10);
        assertThat(offsets.commitPosition()).isEqualTo(12);
        offsets.done(12);
        assertThat(offsets.commitPosition()).isEqualTo(13);
        assertThat(offsets.idle()).isTrue();
    }
}
