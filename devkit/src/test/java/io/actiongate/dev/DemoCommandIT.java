package io.actiongate.dev;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs {@code actiongate demo} in-process: a private broker, the three roles, the sandboxes, and the six steps of
 * the walk-through. The summary is the contract a newcomer sees.
 */
@Tag("system")
class DemoCommandIT {

    @Test
    void shouldWalkThroughEveryStepOfTheDemoAndSummariseIt() {
        CliRun run = CliRun.of("demo");

        assertThat(run.out())
                .contains("actiongate demo summary")
                .contains("[ok] summary email          SUCCEEDED, emails in the sandbox mailbox: 1")
                .contains("[ok] redelivered proposal   SUCCEEDED again, emails: 1")
                .contains("[ok] conflicting proposal   conflict recorded, emails: 1")
                .contains("[ok] forged approval        APPROVAL_SIGNATURE_INVALID, still WAITING_APPROVAL, emails: 1")
                .contains("[ok] provider 429           SUCCEEDED after 2 attempts, provider effects: 1, requests: 2")
                .contains("[ok] provider timeout       SUCCEEDED resolved by RECONCILER, provider effects: 1, "
                        + "requests: 1")
                .contains("6 passed, 0 failed")
                .doesNotContain("FAILED]");
        assertThat(run.exitCode()).as(run.err()).isZero();
        // the approval is a person's, on the approval page: signed in at the identity provider, stepped up with a
        // one-time code, after the page showed the exact email (the forged approval still uses an untrusted key)
        assertThat(run.out())
                .contains("The human signs in at http://localhost:")
                .contains("through the identity provider as alice@demo and sets up a one-time code app")
                .contains("the page shows the exact email (to team@example.com, subject \"Summary of notes N-12 "
                        + "and N-17\", the body)")
                .contains("approved with a one-time code: Decision published")
                .contains("the human cancels it on the approval page: Decision published")
                .doesNotContain("the approval page failed");
        // the receipts printed on the way never carry the email body
        assertThat(run.out()).doesNotContain("legal review done").doesNotContain("customer list");
    }
}
