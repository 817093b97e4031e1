package io.actiongate.cli.commands;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.actiongate.avro.ActionProposal;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.key.ActionKey;
import io.actiongate.topics.Topics;

/**
 * {@code actiongate propose}: publishes an {@link ActionProposal} described by a JSON file (see
 * {@link ProposalJson}) and/or flags; flags override the file's fields. Prints the action key, the input digest and
 * the action digest an approver signs.
 */
@Command(name = "propose", description = {
        "Publish an action proposal from a JSON file (snake_case fields, 'input' as a JSON object) and/or flags.",
        "input_json, input_digest and (by default) proposed_at are computed. Flags override the file."})
public final class ProposeCommand extends OperatorCommand {

    @Option(names = "--file", paramLabel = "FILE", description = "Proposal JSON ('-' for standard input).")
    Path file;

    @Option(names = "--task-id", paramLabel = "ID") String taskId;
    @Option(names = "--tool-call-id", paramLabel = "ID") String toolCallId;
    @Option(names = "--task-version", paramLabel = "N") Long taskVersion;
    @Option(names = "--org", paramLabel = "ORG") String orgId;
    @Option(names = "--principal", paramLabel = "ID") String principalId;
    @Option(names = "--profile", paramLabel = "ID") String profileId;
    @Option(names = "--authorization-epoch", paramLabel = "N") Long authorizationEpoch;
    @Option(names = "--provider", paramLabel = "NAME") String provider;
    @Option(names = "--operation", paramLabel = "NAME") String operation;
    @Option(names = "--tool", paramLabel = "NAME") String toolName;
    @Option(names = "--tool-schema-hash", paramLabel = "HASH") String toolSchemaHash;
    @Option(names = "--input", paramLabel = "JSON", description = "The tool input as a JSON object.") String input;
    @Option(names = "--summary", paramLabel = "TEXT", description = "Plain language, at most 280 characters.")
    String summary;
    @Option(names = "--idempotency-key", paramLabel = "KEY") String idempotencyKey;
    @Option(names = "--business-operation-id", paramLabel = "ID") String businessOperationId;

    @Option(names = "--dry-run", description = "Validate and print the digests without publishing.")
    boolean dryRun;

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
        if (!attach.isEmpty()) {
            if (dryRun) {
                throw new CommandFailure("--dry-run cannot be combined with --attach: staging assigns the object keys "
                        + "the action digest covers");
            }
            ProposalAttachments.Staged staged = ProposalAttachments.stage(storage.config(), proposal, attach);
            proposal = staged.proposal();
            try {
                TopicWriter.write(kafka, Topics.PROPOSALS, List.of(new TopicWriter.Entry<>(key, proposal)));
            } catch (RuntimeException e) {
                staged.discard();
                throw e;
            }
            proposal.getAttachments().forEach(a -> out().println("attachment:    " + a.getObjectKey() + " sha256="
                    + a.getSha256() + " size=" + a.getSizeBytes() + " type=" + a.getContentType()));
        } else if (!dryRun) {
            TopicWriter.write(kafka, Topics.PROPOSALS, List.of(new TopicWriter.Entry<>(key, proposal)));
        }
        out().println("action_key:    " + key);
        out().println("input_digest:  " + proposal.getInputDigest());
        out().println("action_digest: " + Digests.actionDigest(FrozenAction.of(proposal)));
        out().flush();
        return 0;
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
