package io.actiongate.examples;

import java.time.Duration;

import io.actiongate.client.ActionGateClient;
import io.actiongate.client.ActionReceipt;
import io.actiongate.client.ProposalHandle;
import io.actiongate.client.ProposalRequest;
import io.actiongate.client.Until;

/**
 * A tool host in one file: proposes {@code webhook:send_email} for the dev kit's demo policy (org {@code demo},
 * profile {@code assistant}, task {@code T-1}; the sandbox SMTP server receives the mail), prints what a human approves, then waits for the final receipt.
 *
 * <pre>
 * ./actiongate dev                         # prints its bootstrap servers and the review page
 * java -cp ... io.actiongate.examples.ProposeAndWait 127.0.0.1:PORT call-1
 * </pre>
 *
 * Run it twice with the same call id: the second run proposes nothing new and prints the same action's state.
 */
public final class ProposeAndWait {

    private ProposeAndWait() {
    }

    /** The call: the same {@code callId} always gives the same request, so running it again is harmless. */
    static ProposalRequest request(String callId) {
        return ProposalRequest.builder()
                .action("T-1", callId).taskVersion(1).authorizationEpoch(1)
                .identity("demo", "assistant-host").profile("assistant") // your tool host's authenticated caller
                .tool("smtp", "send_email", "send_email", "sha256:demo-send-email-v1")
                .input("{\"to\":\"team@example.com\",\"subject\":\"Disk\",\"body\":\"disk is full\"}")
                .summary("Email team@example.com that the disk is full")
                .build();
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: ProposeAndWait BOOTSTRAP_SERVERS TOOL_CALL_ID");
            System.exit(2);
        }
        try (ActionGateClient client = ActionGateClient.builder().bootstrapServers(args[0]).build()) {
            ProposalRequest request = request(args[1]);
            ProposalHandle handle = client.propose(request, Until.WAITING_APPROVAL, Duration.ofSeconds(30));
            ActionReceipt first = handle.await();
            System.out.println(handle.actionKey() + " " + first.state() + first.reason().map(r -> " " + r).orElse(""));
            if (first.state().isTerminal()) {
                return;
            }
            System.out.println("approve action digest " + handle.actionDigest() + " on the review page");
            ActionReceipt done = client.propose(request, Until.TERMINAL, Duration.ofMinutes(10)).await();
            System.out.println(handle.actionKey() + " " + done.state() + done.reason().map(r -> " " + r).orElse(""));
        }
    }
}
