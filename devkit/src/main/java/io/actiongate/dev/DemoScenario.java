package io.actiongate.dev;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.ResolvedBy;
import io.actiongate.cli.commands.DecideCommand;
import io.actiongate.cli.commands.ProposalJson;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.key.ActionKey;
import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.serde.AvroSetup;
import io.actiongate.testing.ApprovalPageClient;
import io.actiongate.topics.Topics;

/**
 * The walk-through of {@code actiongate demo}: an assistant proposes to email the team a summary of two selected
 * project notes, a human approves exactly that email, it is sent once; then the things that go wrong in real life:
 * a redelivered proposal, a conflicting one, a forged approval, a rate-limited provider and a provider that times out
 * after acting. Each step prints the receipts as they arrive and checks what the sandboxes saw.
 */
public final class DemoScenario {

    /** One checked step of the demo. */
    public record Step(String name, String expected, String observed, boolean ok) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(90);
    static final String SUMMARY_SUBJECT = "Summary of notes N-12 and N-17";
    static final String SUMMARY_BODY = "N-12 (launch checklist): legal review done, two blockers left.\n"
            + "N-17 (pricing): finance agrees on the new tiers; page copy due Friday.";

    private final String bootstrapServers;
    private final String prefix;
    private final Sandboxes sandboxes;
    private final Path approverKey;
    private final ApprovalPageClient reviewer;
    private final java.net.URI approvalPage;
    private final PrintWriter out;
    private final String taskId = "demo-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<Step> steps = new ArrayList<>();

    /**
     * @param approvalPage the approval service's public URL: the human of the demo signs in there (at its identity
     *                     provider, with the demo login) and approves the summary email on its review page
     * @param approverKey  the key the webhook fault steps sign their approvals with, as {@code actiongate decide}
     *                     does (the approval page takes one one-time code per 30 s, too slow for every step)
     */
    public DemoScenario(String bootstrapServers, String prefix, Sandboxes sandboxes, java.net.URI approvalPage,
                        Path approverKey, PrintWriter out) {
        this.bootstrapServers = bootstrapServers;
        this.prefix = prefix;
        this.sandboxes = sandboxes;
        this.approvalPage = approvalPage;
        this.reviewer = new ApprovalPageClient(approvalPage);
        this.approverKey = approverKey;
        this.out = out;
    }

    /** Runs every step (a failed step is recorded, the next still runs) and returns them in order. */
    public List<Step> run() throws Exception {
        AvroSetup.install();
        PrivateKey approver = KeyFiles.readPrivateKey(approverKey);
        try (KafkaProducer<String, byte[]> producer = producer();
             DemoWatcher watcher = new DemoWatcher(bootstrapServers, prefix, taskId, out)) {
            say("Task " + taskId + ": making it active in the demo policy");
            DevStack.publish(bootstrapServers, prefix, List.of(DemoPolicy.activeTask(taskId)));
            // the policy is a global table: give the gate a moment to see the new task before proposing
            Thread.sleep(2_000);
            say("The human signs in at " + approvalPage + " through the identity provider as "
                    + DevIdentityProvider.DEMO_SUBJECT + " and sets up a one-time code app under Step-up factors");
            String who;
            try {
                // factors are durable: a fresh one-time code app for this run needs the old one reset (audited)
                io.actiongate.approver.FactorReset.run(bootstrapServers, Map.of(),
                        io.actiongate.approver.state.KafkaState.defaultTopic(prefix), DemoPolicy.ORG,
                        DevIdentityProvider.DEMO_SUBJECT, "actiongate demo", "the demo sets up a fresh code app");
                // the claims box left empty: the dev kit's provider adds the demo org on its own
                who = reviewer.signInAtLoginForm(approvalPage, DevIdentityProvider.DEMO_SUBJECT, "");
                reviewer.enrolTotp(approvalPage);
            } catch (ApprovalPageClient.PageException e) {
                who = null;
                say("  the approval page failed: " + e.getMessage());
            }
            boolean signedIn = who != null;

            ActionProposal email = summaryEmail(taskId, "email-1");
            step("summary email", "WAITING_APPROVAL, then one send after the human approves this exact email on "
                    + "the approval page", () -> {
                        send(producer, Topics.PROPOSALS.name(prefix),
                                ActionKey.format(email.getTaskId(), email.getToolCallId()),
                                Topics.PROPOSALS.valueSerde().serializer().serialize(null, email));
                        Receipt waiting = watcher.awaitReceipt("email-1",
                                r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL, WAIT, "WAITING_APPROVAL receipt");
                        if (!signedIn) {
                            return "not signed in at the approval page";
                        }
                        say("  " + DevIdentityProvider.DEMO_SUBJECT + " opens " + approvalPage + "/review/" + taskId
                                + "/email-1");
                        ApprovalPageClient.Decided page = reviewer.decide(approvalPage,
                                ActionKey.format(taskId, "email-1"), "APPROVE", WAIT);
                        String shown = shownEmailProblem(page, waiting.getActionDigest());
                        if (shown != null) {
                            return shown;
                        }
                        say("  the page shows the exact email (to " + page.recipient() + ", subject \""
                                + page.subject() + "\", the body) and action digest " + page.actionDigest());
                        say("  approved with a one-time code: " + page.answer());
                        if (!page.answer().equals("Decision published")) {
                            return "the approval page refused: " + page.answer();
                        }
                        Receipt done = watcher.awaitReceipt("email-1", r -> r.getStatus().ordinal()
                                >= ReceiptStatus.SUCCEEDED.ordinal(), WAIT, "final receipt");
                        return done.getStatus() + ", emails in the sandbox mailbox: " + sandboxes.mailsReceived();
                    }, o -> o.equals("SUCCEEDED, emails in the sandbox mailbox: 1"));

            step("redelivered proposal", "no second send; the stored receipt is published again", () -> {
                long before = watcher.receiptCount("email-1");
                send(producer, Topics.PROPOSALS.name(prefix), "" + taskId + "/email-1",
                        Topics.PROPOSALS.valueSerde().serializer().serialize(null, email));
                Receipt again = watcher.awaitReceipt("email-1", r -> watcher.receiptCount("email-1") > before, WAIT,
                        "re-published receipt");
                return again.getStatus() + " again, emails: " + sandboxes.mailsReceived();
            }, o -> o.equals("SUCCEEDED again, emails: 1"));

            step("conflicting proposal", "same call id with another email: a conflict, nothing sent", () -> {
                ActionProposal conflicting = proposal("email-1", "smtp", "send_email", "send_email",
                        "sha256:demo-send-email-v1", emailInput("Summary of notes N-12 and N-17",
                                "Also forward the whole customer list to partner@example.com."),
                        "Email team@example.com a summary of the two selected notes, N-12 and N-17", null);
                send(producer, Topics.PROPOSALS.name(prefix), taskId + "/email-1",
                        Topics.PROPOSALS.valueSerde().serializer().serialize(null, conflicting));
                watcher.awaitConflict("email-1", WAIT);
                return "conflict recorded, emails: " + sandboxes.mailsReceived();
            }, o -> o.equals("conflict recorded, emails: 1"));

            step("forged approval", "a decision signed by an untrusted key is refused; the action keeps waiting", () -> {
                ActionProposal second = proposal("email-2", "smtp", "send_email", "send_email",
                        "sha256:demo-send-email-v1", emailInput("Notes N-12 and N-17, full text",
                                "The full text of both notes, as requested."),
                        "Email team@example.com the full text of notes N-12 and N-17", null);
                send(producer, Topics.PROPOSALS.name(prefix), taskId + "/email-2",
                        Topics.PROPOSALS.valueSerde().serializer().serialize(null, second));
                Receipt waiting = watcher.awaitReceipt("email-2",
                        r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL, WAIT, "WAITING_APPROVAL receipt");
                KeyPairGenerator generator = KeyPairGenerator.getInstance(KeyFiles.ALGORITHM);
                PrivateKey forger = generator.generateKeyPair().getPrivate();
                decide(producer, "email-2", DecisionType.APPROVE, waiting.getActionDigest(), forger,
                        DevStack.APPROVER_KEY_ID);
                String reason = watcher.awaitDeadLetter("APPROVAL_SIGNATURE_INVALID", WAIT).getReasonCode();
                List<Receipt> after = watcher.settle("email-2", Duration.ofSeconds(2));
                ReceiptStatus status = after.get(after.size() - 1).getStatus();
                // the human then cancels it on the approval page, so the demo leaves nothing pending
                if (signedIn) {
                    say("  the human cancels it on the approval page: "
                            + reviewer.decide(approvalPage, ActionKey.format(taskId, "email-2"), "REJECT", WAIT)
                            .answer());
                } else {
                    decide(producer, "email-2", DecisionType.REJECT, waiting.getActionDigest(), approver,
                            DevStack.APPROVER_KEY_ID);
                }
                watcher.awaitReceipt("email-2", r -> r.getStatus() == ReceiptStatus.DENIED, WAIT, "DENIED receipt");
                return reason + ", still " + status + ", emails: " + sandboxes.mailsReceived();
            }, o -> o.equals("APPROVAL_SIGNATURE_INVALID, still WAITING_APPROVAL, emails: 1"));

            step("provider 429", "attempt 1 is rate limited (Retry-After: 1), attempt 2 succeeds, one effect", () -> {
                String key = taskId + "-update-1";
                sandboxes.webhook().program(SandboxWebhookProvider.Fault.rateLimit(key, 1, "1"));
                Receipt done = approveWebhook(producer, watcher, approver, "update-1", key,
                        "Post the launch status update to the project channel");
                return done.getStatus() + " after " + done.getAttempts().size() + " attempts, provider effects: "
                        + sandboxes.webhook().effects(key) + ", requests: " + sandboxes.webhook().requests(key);
            }, o -> o.equals("SUCCEEDED after 2 attempts, provider effects: 1, requests: 2"));

            step("provider timeout", "the effect happens but the answer times out: UNKNOWN, never replayed, "
                    + "reconciled", () -> {
                String key = taskId + "-update-2";
                sandboxes.webhook().program(SandboxWebhookProvider.Fault.delayAfterApply(key, Duration.ofSeconds(4)));
                Receipt done = approveWebhook(producer, watcher, approver, "update-2", key,
                        "Post the pricing status update to the project channel");
                return done.getStatus() + " resolved by " + done.getResolvedBy() + ", provider effects: "
                        + sandboxes.webhook().effects(key) + ", requests: " + sandboxes.webhook().requests(key);
            }, o -> o.equals("SUCCEEDED resolved by RECONCILER, provider effects: 1, requests: 1"));
        }
        return List.copyOf(steps);
    }

    private Receipt approveWebhook(KafkaProducer<String, byte[]> producer, DemoWatcher watcher, PrivateKey approver,
                                   String callId, String idempotencyKey, String summary) throws Exception {
        ObjectNode input = JSON.createObjectNode();
        input.put("channel", "project-launch");
        input.put("text", summary + ".");
        ActionProposal p = proposal(callId, "webhook", "post_update", "post_update", "sha256:demo-post-update-v1",
                input, summary, idempotencyKey);
        send(producer, Topics.PROPOSALS.name(prefix), ActionKey.format(taskId, callId),
                Topics.PROPOSALS.valueSerde().serializer().serialize(null, p));
        Receipt waiting = watcher.awaitReceipt(callId, r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL, WAIT,
                "WAITING_APPROVAL receipt");
        decide(producer, callId, DecisionType.APPROVE, waiting.getActionDigest(), approver, DevStack.APPROVER_KEY_ID);
        return watcher.awaitReceipt(callId, r -> r.getStatus() == ReceiptStatus.SUCCEEDED
                || r.getStatus() == ReceiptStatus.FAILED || r.getStatus() == ReceiptStatus.NOT_APPLIED
                || (r.getStatus() == ReceiptStatus.UNKNOWN && r.getResolvedBy() == ResolvedBy.OWNER), WAIT,
                "final receipt");
    }

    /** Why the review page did not show exactly the proposed summary email, or null when it did. */
    private static String shownEmailProblem(ApprovalPageClient.Decided page, String digest) {
        if (!Sandboxes.MAIL_RECIPIENT.equals(page.recipient()) || !SUMMARY_SUBJECT.equals(page.subject())
                || !SUMMARY_BODY.equals(page.body())) {
            return "the review page did not show the proposed email";
        }
        if (!digest.equals(page.actionDigest())) {
            return "the review page showed action digest " + page.actionDigest() + ", the gate " + digest;
        }
        return null;
    }

    private interface Action {
        String run() throws Exception;
    }

    private void step(String name, String expected, Action action, java.util.function.Predicate<String> ok) {
        out.println();
        say("== " + name + ": " + expected);
        String observed;
        boolean passed;
        try {
            observed = action.run();
            passed = ok.test(observed);
        } catch (TimeoutException e) {
            observed = e.getMessage();
            passed = false;
        } catch (Exception e) {
            observed = e.getClass().getSimpleName() + ": " + e.getMessage();
            passed = false;
        }
        say("   -> " + observed + (passed ? "" : "   (not what was expected)"));
        steps.add(new Step(name, expected, observed, passed));
    }

    /** The demo's summary email: what {@code demo} approves, and what {@code dev} leaves waiting for approval. */
    static ActionProposal summaryEmail(String taskId, String callId) {
        return proposal(taskId, callId, "smtp", "send_email", "send_email", "sha256:demo-send-email-v1",
                emailInput(SUMMARY_SUBJECT, SUMMARY_BODY),
                "Email team@example.com a summary of the two selected notes, N-12 and N-17", null);
    }

    private static ObjectNode emailInput(String subject, String body) {
        ObjectNode input = JSON.createObjectNode();
        input.put("to", Sandboxes.MAIL_RECIPIENT);
        input.put("subject", subject);
        input.put("body", body);
        return input;
    }

    private ActionProposal proposal(String callId, String provider, String operation, String tool, String schemaHash,
                                    ObjectNode input, String summary, String idempotencyKey) {
        return proposal(taskId, callId, provider, operation, tool, schemaHash, input, summary, idempotencyKey);
    }

    private static ActionProposal proposal(String taskId, String callId, String provider, String operation,
                                           String tool, String schemaHash, ObjectNode input, String summary,
                                           String idempotencyKey) {
        ObjectNode p = JSON.createObjectNode();
        p.put("task_id", taskId);
        p.put("tool_call_id", callId);
        p.put("task_version", 1);
        p.put("org_id", DemoPolicy.ORG);
        p.put("principal_id", "assistant-host");
        p.put("profile_id", DemoPolicy.PROFILE);
        p.put("authorization_epoch", DemoPolicy.EPOCH);
        p.put("provider", provider);
        p.put("operation", operation);
        p.put("tool_name", tool);
        p.put("tool_schema_hash", schemaHash);
        p.set("input", input);
        p.put("summary", summary);
        if (idempotencyKey != null) {
            p.put("idempotency_key", idempotencyKey);
        }
        ObjectNode origin = p.putObject("origin");
        origin.put("conversation_id", "conv-" + taskId);
        origin.put("turn_id", "turn-1");
        return ProposalJson.fromJson(p, Instant.now());
    }

    private void decide(KafkaProducer<String, byte[]> producer, String callId, DecisionType type, String digest,
                        PrivateKey key, String keyId) throws Exception {
        Decision decision = DecideCommand.signed(new ActionKey(taskId, callId), type, digest,
                DevStack.APPROVER_SUBJECT, DemoPolicy.ORG, "demo-cli", Duration.ofMinutes(15), keyId, key,
                Instant.now());
        send(producer, Topics.DECISIONS.name(prefix), ActionKey.format(taskId, callId),
                Topics.DECISIONS.valueSerde().serializer().serialize(null, decision));
    }

    private static void send(KafkaProducer<String, byte[]> producer, String topic, String key, byte[] value)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
    }

    private KafkaProducer<String, byte[]> producer() {
        return KafkaClients.of(bootstrapServers, Map.of()).producer("actiongate-demo")
                .create(new StringSerializer(), new ByteArraySerializer());
    }

    private void say(String line) {
        out.println(line);
        out.flush();
    }

    /** The one-screen summary printed at the end. */
    public static List<String> summary(List<Step> steps) {
        List<String> lines = new ArrayList<>();
        lines.add("actiongate demo summary");
        for (Step s : steps) {
            lines.add(String.format("  [%s] %-22s %s", s.ok() ? "ok" : "FAILED", s.name(), s.observed()));
        }
        long passed = steps.stream().filter(Step::ok).count();
        lines.add(passed + " passed, " + (steps.size() - passed) + " failed");
        return lines;
    }
}
