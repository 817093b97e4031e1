package io.actiongate.loadtest.harness;

import java.nio.ByteBuffer;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.gate.GateConfig;
import io.actiongate.key.ActionKey;
import io.actiongate.key.Partitioning;
import io.actiongate.policy.PolicyKey;
import io.actiongate.topics.Topics;

/**
 * The records the benchmark feeds the gate, built and encoded before any clock starts: a policy with a trusted
 * read-only tool ({@value #READ_TOOL}, approval NONE) and a tool that needs a human ({@value #SEND_TOOL}, approval
 * HUMAN), proposals with correct input digests, APPROVE decisions signed over the frozen action's digest by a key
 * the gate trusts, and SUCCEEDED outcomes. Every proposal has its own input, so nothing can be cached across actions.
 */
public final class Workload {

    public static final String ORG = "bench";
    public static final String PROFILE = "agent";
    public static final String PROVIDER = "webhook";
    public static final String READ_TOOL = "get_notes";
    public static final String SEND_TOOL = "post_update";
    public static final String SCHEMA_HASH = "sha256:bench-schema-v1";
    public static final String KEY_ID = "bench-approver";
    public static final String APPROVER = "approver@bench";

    private final KeyPair keys;
    private final String taskId;

    public Workload(String taskId) {
        this.taskId = taskId;
        try {
            this.keys = KeyPairGenerator.getInstance(DecisionSigning.ALGORITHM).generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no " + DecisionSigning.ALGORITHM, e);
        }
    }

    public String taskId() {
        return taskId;
    }

    /** The gate's {@code gate.trusted.keys} entry for the approver key of this workload. */
    public String trustedKeyConfig() {
        return KEY_ID + "=" + Base64.getEncoder().encodeToString(keys.getPublic().getEncoded());
    }

    /** Gate settings every benchmark gate shares, on top of which each run adds its own. */
    public Map<String, String> gateSettings() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put(GateConfig.TRUSTED_KEYS_CONFIG, trustedKeyConfig());
        config.put(GateConfig.APPROVERS_CONFIG, ORG + ":*");
        return config;
    }

    /** Policy key to record: epoch, active task, grant, integration and the two tools. */
    public Map<String, PolicyRecord> policy() {
        Map<String, PolicyRecord> p = new LinkedHashMap<>();
        p.put(PolicyKey.epochKey(ORG), record("epoch", AuthorizationEpoch.newBuilder().setOrgId(ORG).setEpoch(1).build()));
        p.put(PolicyKey.taskKey(taskId), record("task", TaskState.newBuilder().setTaskId(taskId).setVersion(1)
                .setStatus(LifecycleStatus.ACTIVE).setOrgId(ORG).build()));
        p.put(PolicyKey.grantKey(ORG, PROFILE), record("grant", Grant.newBuilder().setOrgId(ORG).setProfileId(PROFILE)
                .setTools(List.of(READ_TOOL, SEND_TOOL)).setMode(GrantMode.FULL_ACCESS).setChatEnabled(true)
                .build()));
        p.put(PolicyKey.integrationKey(ORG, PROVIDER), record("integration", Integration.newBuilder().setOrgId(ORG)
                .setProvider(PROVIDER).setEnabled(true).setScopes(List.of(READ_TOOL, SEND_TOOL)).build()));
        p.put(PolicyKey.toolKey(PROVIDER, READ_TOOL), record("tool", tool(READ_TOOL).setReadOnlyHint(true)
                .setIdempotentHint(true).setApproval(ApprovalMode.NONE).build()));
        p.put(PolicyKey.toolKey(PROVIDER, SEND_TOOL), record("tool", tool(SEND_TOOL).setReadOnlyHint(false)
                .setApproval(ApprovalMode.HUMAN).build()));
        return p;
    }

    private static ToolDescriptor.Builder tool(String name) {
        return ToolDescriptor.newBuilder().setProvider(PROVIDER).setToolName(name).setOperation(name)
                .setSchemaHash(SCHEMA_HASH).setDestructiveHint(false).setIdempotentHint(null).setOpenWorldHint(false)
                .setMaxInputBytes(4096).setEnabled(true);
    }

    private static PolicyRecord record(String kind, Object body) {
        return PolicyRecord.newBuilder().setKind(kind).setBody(body).build();
    }

    public static String callId(String prefix, int i) {
        return prefix + "-" + i;
    }

    public String key(String callId) {
        return ActionKey.format(taskId, callId);
    }

    /** A proposal for {@code tool} with its own input and a correct input digest. */
    public ActionProposal proposal(String callId, String tool, int i, Instant at) {
        String input = "{\"channel\":\"project-" + (i % 97) + "\",\"query\":\"status of ticket OPS-" + i
                + "\",\"limit\":20}";
        return ActionProposal.newBuilder()
                .setTaskId(taskId).setToolCallId(callId).setTaskVersion(1).setOrgId(ORG).setPrincipalId("agent-host")
                .setProfileId(PROFILE).setAuthorizationEpoch(1).setProvider(PROVIDER).setOperation(tool)
                .setToolName(tool).setToolSchemaHash(SCHEMA_HASH).setInputJson(input)
                .setInputDigest(Digests.inputDigest(input))
                .setSummary("Look up the status of ticket OPS-" + i + " for the project channel")
                .setIdempotencyKey(null).setBusinessOperationId(null).setOrigin(null).setAttachments(List.of())
                .setClaimedAnnotations(null).setProposedAt(at)
                .build();
    }

    /** An APPROVE decision bound to the frozen action of {@code p}, signed by the trusted key, id {@code d-<call>}. */
    public Decision approve(ActionProposal p, Instant issuedAt) {
        return approve(p, issuedAt, 1);
    }

    /**
     * An APPROVE decision as {@link #approve(ActionProposal, Instant)}, its id chosen among {@code d-<call>},
     * {@code d-<call>#1}, ... to sit on its action's partition among {@code partitions}, as the approval service
     * chooses it ({@link Partitioning#colocatedDecisionId}): the gate then claims and applies it with no hop. The
     * same call always gets the same id.
     */
    public Decision approve(ActionProposal p, Instant issuedAt, int partitions) {
        String call = p.getToolCallId();
        return signed(p, issuedAt, Partitioning.colocatedDecisionId(k -> decisionIdCandidate(call, k),
                ActionKey.format(p.getTaskId(), call), partitions));
    }

    /**
     * An APPROVE decision as {@link #approve(ActionProposal, Instant)}, its id the first of {@code d-<call>},
     * {@code d-<call>#1}, ... whose partition among {@code partitions} (more than one) is not its action's, as an
     * approver that picks ids at random mostly gets: the gate claims it in the id's task and hops back to the
     * action's, two hops.
     */
    public Decision approveElsewhere(ActionProposal p, Instant issuedAt, int partitions) {
        if (partitions < 2) {
            throw new IllegalArgumentException("an id off its action's partition needs two partitions or more");
        }
        String call = p.getToolCallId();
        int home = Partitioning.home(ActionKey.format(p.getTaskId(), call), partitions);
        for (int k = 0; ; k++) {
            String id = decisionIdCandidate(call, k);
            if (Partitioning.home(id, partitions) != home) {
                return signed(p, issuedAt, id);
            }
        }
    }

    private static String decisionIdCandidate(String call, int k) {
        return k == 0 ? "d-" + call : "d-" + call + "#" + k;
    }

    private Decision signed(ActionProposal p, Instant issuedAt, String id) {
        Decision unsigned = Decision.newBuilder().setDecisionId(id).setTaskId(p.getTaskId())
                .setToolCallId(p.getToolCallId()).setType(DecisionType.APPROVE)
                .setActionDigest(Digests.actionDigest(FrozenAction.of(p))).setApproverSubject(APPROVER)
                .setApproverOrg(ORG).setAuthMethod("bench").setIssuedAt(issuedAt)
                .setExpiresAt(issuedAt.plus(Duration.ofDays(1))).setKeyId(KEY_ID)
                .setSignature(ByteBuffer.allocate(0)).build();
        return DecisionSigning.sign(unsigned, keys.getPrivate());
    }

    /** The executor's SUCCEEDED outcome of attempt 1 of {@code callId}. */
    public AttemptOutcome succeeded(String callId, Instant at) {
        return AttemptOutcome.newBuilder().setTaskId(taskId).setToolCallId(callId).setAttempt(1)
                .setStatus(OutcomeStatus.SUCCEEDED).setDispatched(true).setHttpStatus(200)
                .setProviderReceiptId("prov-" + callId).setErrorCode(null).setErrorDetail(null).setRetryAt(null)
                .setStartedAt(at).setFinishedAt(at).setExecutorId("bench-executor").build();
    }

    /** {@code n} encoded records, key and value bytes. */
    public record Encoded(List<String> keys, List<byte[]> values) {
        public int size() {
            return keys.size();
        }
    }

    public Encoded proposals(String prefix, String tool, int n, Instant at) {
        List<String> k = new ArrayList<>(n);
        List<byte[]> v = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String call = callId(prefix, i);
            k.add(key(call));
            v.add(Topics.PROPOSALS.valueSerde().serializer().serialize(null, proposal(call, tool, i, at)));
        }
        return new Encoded(k, v);
    }

    public Encoded approvals(String prefix, String tool, int n, Instant proposedAt, Instant issuedAt) {
        List<String> k = new ArrayList<>(n);
        List<byte[]> v = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String call = callId(prefix, i);
            k.add(key(call));
            v.add(Topics.DECISIONS.valueSerde().serializer().serialize(null,
                    approve(proposal(call, tool, i, proposedAt), issuedAt)));
        }
        return new Encoded(k, v);
    }

    public Encoded outcomes(String prefix, int n, Instant at) {
        List<String> k = new ArrayList<>(n);
        List<byte[]> v = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String call = callId(prefix, i);
            k.add(key(call));
            v.add(Topics.OUTCOMES.valueSerde().serializer().serialize(null, succeeded(call, at)));
        }
        return new Encoded(k, v);
    }
}
