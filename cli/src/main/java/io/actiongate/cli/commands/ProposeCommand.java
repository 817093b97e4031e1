package io.actiongate.cli.commands;

import io.actiongate.cli.ExitCodes;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.key.ActionKey;
import io.actiongate.topics.Topics;

/**
 * {@code actiongate propose}: publishes an {@link ActionProposal} described by a JSON file (see
 * {@link ProposalJson}) and/or flags; flags override the file's fields. Prints the action key, the input digest and
 * the action digest an approver signs, then waits (bounded, {@code --no-wait} to skip) for the gate's first answer
 * and prints its state, reason code and, while a human must act, the review URL. Exit codes: 0 for any receipt but
 * {@code REJECTED}; {@value #EXIT_REJECTED} for {@code REJECTED}; {@value #EXIT_CONFLICT} when the key already
 * holds another action; {@value #EXIT_NO_RECEIPT} when no answer came within {@code --wait}; 1 for any error.
 */
@Command(name = "propose", resourceBundle = "io.actiongate.cli.commands.ContractLimitsText", description = {
        "Publish an action proposal from a JSON file (snake_case fields, 'input' as a JSON object) and/or flags, "
                + "and wait for the gate's first receipt.",
        "input_json, input_digest and (by default) proposed_at are computed. Flags override the file. Prints the "
                + "action key and digests, then the receipt's state, reason code and, while a human must act, the "
                + "review URL; exit 0 for any receipt but REJECTED."})
public final class ProposeCommand extends OperatorCommand implements ExitCodes.Own {

    @Override
    public int[] ownExitCodes() {
        return new int[] {ExitCodes.REJECTED, ExitCodes.CONFLICT, ExitCodes.NO_RECEIPT};
    }

    /** The gate refused the proposal at admission. */
    static final int EXIT_REJECTED = ExitCodes.REJECTED;
    /** The key already holds another tool or input: the gate published an {@code IdentityConflict}. */
    static final int EXIT_CONFLICT = ExitCodes.CONFLICT;
    /** Published, but no receipt came within {@code --wait} (is the gate running?). */
    static final int EXIT_NO_RECEIPT = ExitCodes.NO_RECEIPT;

    static final String REVIEW_URL_ENV = "ACTIONGATE_REVIEW_URL";

    @Option(names = "--file", paramLabel = "FILE", description = "Proposal JSON ('-' for standard input).")
    Path file;

    @Option(names = "--task-id", paramLabel = "ID", description = "task_id: the task the action belongs to "
            + "(${bundle:contract.id.characters}, at most ${bundle:contract.id.max.chars}).")
    String taskId;
    @Option(names = "--tool-call-id", paramLabel = "ID", description = "tool_call_id: the model's tool call; with "
            + "the task id it is the action key, single use.")
    String toolCallId;
    @Option(names = "--task-version", paramLabel = "N", description = "task_version: the task's version the "
            + "action was planned against (TaskState policy record).")
    Long taskVersion;
    @Option(names = "--org", paramLabel = "ORG", description = "org_id: the organisation acting.")
    String orgId;
    @Option(names = "--principal", paramLabel = "ID", description = "principal_id: the authenticated user the "
            + "tool host acts for (never from model text).")
    String principalId;
    @Option(names = "--profile", paramLabel = "ID", description = "profile_id: the grant profile whose tools "
            + "apply.")
    String profileId;
    @Option(names = "--authorization-epoch", paramLabel = "N", description = "authorization_epoch: the org's "
            + "epoch the action was authorized under (AuthorizationEpoch policy record).")
    Long authorizationEpoch;
    @Option(names = "--provider", paramLabel = "NAME", description = "provider: the connector that runs the tool "
            + "(webhook, smtp, x, cli).")
    String provider;
    @Option(names = "--operation", paramLabel = "NAME", description = "operation: the provider operation.")
    String operation;
    @Option(names = "--tool", paramLabel = "NAME", description = "tool_name: the tool as its descriptor names it.")
    String toolName;
    @Option(names = "--tool-schema-hash", paramLabel = "HASH", description = "tool_schema_hash: the tool "
            + "descriptor's schema_hash the input was written against.")
    String toolSchemaHash;
    @Option(names = "--input", paramLabel = "JSON", description = "The tool input as a JSON object.") String input;
    @Option(names = "--summary", paramLabel = "TEXT", description = "Plain language, at most "
            + "${bundle:contract.summary.max.chars} characters.")
    String summary;
    @Option(names = "--idempotency-key", paramLabel = "KEY", description = "idempotency_key sent to the provider "
            + "on every attempt; derived from the action key when absent (a cli effect needs one).")
    String idempotencyKey;
    @Option(names = "--business-operation-id", paramLabel = "ID", description = "business_operation_id: your own "
            + "id of the business operation, carried along.")
    String businessOperationId;

    @Option(names = "--dry-run", description = "Validate and print the digests without publishing.")
    boolean dryRun;

    @Option(names = "--wait", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
            description = "How long to wait for the first receipt (default: ${DEFAULT-VALUE}; 90s, 2m, PT1M).")
    Duration wait;

    @Option(names = "--no-wait", description = "Publish and return without waiting for a receipt.")
    boolean noWait;

    @Option(names = "--review-url", paramLabel = "URL", defaultValue = "${env:" + REVIEW_URL_ENV + "}",
            description = "The approval service's public URL (review page: URL/review/{task_id}/{tool_call_id}), "
                    + "or a template with {task_id} and {tool_call_id}; printed while a human must act "
                    + "(default: $" + REVIEW_URL_ENV + ").")
    String reviewUrl;

    @Option(names = "--attach", paramLabel = "FILE", description = {
            "Stage FILE in the object store under this action and list it in 'attachments' (repeatable). The "
                    + "content type follows the extension (.pdf .txt .csv .json .png .jpg); needs --storage-config."})
    List<Path> attach = new java.util.ArrayList<>();

    @Mixin
    StorageOptions storage = new StorageOptions();

    @Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Override
    int execute() throws Exception {
        ActionProposal proposal = ProposalJson.fromJson(description(), Instant.now());
        String key = ActionKey.format(proposal.getTaskId(), proposal.getToolCallId());
        if (dryRun) {
            if (!attach.isEmpty()) {
                throw new CommandFailure("--dry-run cannot be combined with --attach: staging assigns the object keys "
                        + "the action digest covers");
            }
            printDigests(key, proposal);
            return 0;
        }
        if (wait.isZero() || wait.isNegative()) {
            throw new CommandFailure("--wait must be positive; use --no-wait to return without a receipt");
        }
        ProposalAttachments.Staged staged = attach.isEmpty() ? null
                : ProposalAttachments.stage(storage.config(), proposal, attach);
        ActionProposal offer = staged == null ? proposal : staged.proposal();
        boolean published = false;
        // positioned before the proposal is published, so the gate's answer cannot be missed
        try (FirstReceipt first = noWait ? null : new FirstReceipt(kafka)) {
            TopicWriter.write(kafka, Topics.PROPOSALS, List.of(new TopicWriter.Entry<>(key, offer)));
            published = true;
            offer.getAttachments().forEach(a -> out().println("attachment:    " + a.getObjectKey() + " sha256="
                    + a.getSha256() + " size=" + a.getSizeBytes() + " type=" + a.getContentType()));
            printDigests(key, offer);
            if (first == null) {
                return 0;
            }
            return answer(key, first.await(offer, key, wait));
        } catch (RuntimeException e) {
            if (staged != null && !published) {
                staged.discard(); // nothing names the staged objects: take them back
            }
            throw e;
        }
    }

    private void printDigests(String key, ActionProposal proposal) {
        out().println("action_key:    " + key);
        out().println("input_digest:  " + proposal.getInputDigest());
        out().println("action_digest: " + Digests.actionDigest(FrozenAction.of(proposal)));
        out().flush();
    }

    private int answer(String key, Optional<FirstReceipt.Answer> answer) {
        if (answer.isEmpty()) {
            err().println("error: no receipt for " + key + " within " + (wait.toMillis() % 1000 == 0 ? wait.toSeconds() + "s"
                    : wait.toMillis() + "ms") + " (is the gate running? is the task one of org_id's? a proposal"
                    + " under another org's task gets no receipt, only a TASK_NOT_OWNED dead letter); the proposal was"
                    + " published: 'actiongate status " + key.replace('/', ' ') + "' shows it later");
            err().flush();
            return EXIT_NO_RECEIPT;
        }
        IdentityConflict conflict = answer.get().conflict();
        if (conflict != null) {
            out().println("state:         CONFLICT");
            out().println("reason:        " + key + " already holds another action (" + conflict.getExistingTool()
                    + ", " + conflict.getExistingDigest() + "); nothing changed: propose under a new tool_call_id");
            out().flush();
            return EXIT_CONFLICT;
        }
        Receipt r = answer.get().receipt();
        out().println("state:         " + r.getStatus());
        out().println("reason_code:   " + (r.getReasonCode() == null ? "-" : r.getReasonCode()));
        if (r.getReason() != null && !r.getReason().isBlank()) {
            out().println("reason:        " + r.getReason());
        }
        if (r.getStatus() == ReceiptStatus.WAITING_APPROVAL || r.getStatus() == ReceiptStatus.UNKNOWN) {
            out().println("review_url:    " + (reviewUrl == null || reviewUrl.isBlank()
                    ? "- (set --review-url or " + REVIEW_URL_ENV + " to the approval service's URL)"
                    : reviewUrl(reviewUrl, r.getTaskId(), r.getToolCallId())));
        }
        out().flush();
        return r.getStatus() == ReceiptStatus.REJECTED ? EXIT_REJECTED : 0;
    }

    /** The approval service's review page of one action; ids are URL-safe by their syntax. */
    static String reviewUrl(String base, String taskId, String toolCallId) {
        String b = base.strip();
        if (b.contains("{task_id}") || b.contains("{tool_call_id}")) {
            return b.replace("{task_id}", taskId).replace("{tool_call_id}", toolCallId);
        }
        while (b.endsWith("/")) {
            b = b.substring(0, b.length() - 1);
        }
        return b + "/review/" + ActionKey.format(taskId, toolCallId); // the page's path is the action key
    }

    private JsonNode description() throws java.io.IOException {
        ObjectNode json;
        if (file != null) {
            JsonNode read = JsonInput.read(file);
            if (!read.isObject()) {
                throw new CommandFailure(file + ": expected a JSON object describing one proposal");
            }
            json = (ObjectNode) read;
        } else {
            json = JsonNodeFactory.instance.objectNode();
        }
        put(json, "task_id", taskId);
        put(json, "tool_call_id", toolCallId);
        put(json, "task_version", taskVersion);
        put(json, "org_id", orgId);
        put(json, "principal_id", principalId);
        put(json, "profile_id", profileId);
        put(json, "authorization_epoch", authorizationEpoch);
        put(json, "provider", provider);
        put(json, "operation", operation);
        put(json, "tool_name", toolName);
        put(json, "tool_schema_hash", toolSchemaHash);
        put(json, "summary", summary);
        put(json, "idempotency_key", idempotencyKey);
        put(json, "business_operation_id", businessOperationId);
        if (input != null) {
            json.set("input", JsonInput.parse(input, "--input"));
        }
        return json;
    }

    private static void put(ObjectNode json, String field, Object value) {
        if (value instanceof Long n) {
            json.put(field, n);
        } else if (value != null) {
            json.put(field, value.toString());
        }
    }
}
