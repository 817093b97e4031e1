package io.actiongate.chaos.check;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.AttemptSummary;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.Reconciliation;
import io.actiongate.avro.ResolvedBy;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.key.ActionKey;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.HangingTransactions;

/**
 * The independent checker of a chaos run. It owes nothing to the gate's code: it reads every actiongate topic from
 * the beginning with {@code isolation.level=read_committed} (only the schema classes decode the records), the
 * provider's request log and the broker's transaction listing, and checks the invariants (a)–(k):
 * <ol type="a">
 *   <li>no idempotency key reached the provider's apply step more than once (a provider without an idempotency
 *       store would have applied each such request; see {@link ProviderLog});</li>
 *   <li>every acknowledged proposal ends in a terminal receipt or in {@code UNKNOWN}; none is still
 *       {@code DISPATCHING} (or earlier) at the end;</li>
 *   <li>every {@code SUCCEEDED} has exactly one provider effect over all its attempts' keys, every non-success
 *       terminal has none, and every provider effect belongs to a reserved attempt whose action ended
 *       {@code SUCCEEDED} or {@code UNKNOWN};</li>
 *   <li>no decision, outcome or reconciliation applied twice: at most one transition into {@code APPROVED}, into a
 *       terminal status and into a reconciler resolution per action, nothing after a terminal receipt, no attempt
 *       reserved twice;</li>
 *   <li>at most three attempts per action, numbered 1..n, each reserved once, all under the action's one
 *       idempotency key;</li>
 *   <li>no transaction still open at the end longer than {@code hangingAfter};</li>
 *   <li>no input body (the marker planted in every input) outside the topics that carry inputs by design
 *       (proposals, attempts, unknown-outcomes), and the planted credential in no topic at all;</li>
 *   <li>per key, committed receipts never go backwards in the lifecycle table ({@link ReceiptOrder}:
 *       no {@code DISPATCHING} after {@code SUCCEEDED}) and a receipt's attempt list is never shortened;</li>
 *   <li>every effect at the provider maps to exactly one reservation: its idempotency key is carried by the
 *       reservations of one action only, and that action's receipts never report two succeeded attempts;</li>
 *   <li>no aborted record is read by a {@code read_committed} consumer and no committed one is missing (the
 *       run's transaction probe, {@link ProbeLog});</li>
 *   <li>every transaction the broker has open at the end ends ({@code listTransactions} then
 *       {@code describeTransactions}: it completes, or a new transaction or producer epoch replaces it) within
 *       {@code transactionsEndWithin};</li>
 *   <li>on a replicated cluster ({@link #requireReplication}), every topic replicated as required;</li>
 *   <li>with {@link #requireApprovals}, no effect without exactly one valid approval ({@link ApprovalCheck});</li>
 *   <li>with {@link #requireMcp}, no duplicate effect for any MCP call ({@link McpCheck}): the upstream MCP
 *       server's executions join the provider log for (a), (c), (i) and (m).</li>
 * </ol>
 */
public final class Checker {

    private static final Set<ReceiptStatus> TERMINAL = EnumSet.of(ReceiptStatus.SUCCEEDED, ReceiptStatus.FAILED,
            ReceiptStatus.REJECTED, ReceiptStatus.DENIED, ReceiptStatus.EXPIRED, ReceiptStatus.CANCELLED,
            ReceiptStatus.NOT_APPLIED);
    /** Topics whose records carry an action's input by design. */
    private static final Set<String> INPUT_TOPICS = Set.of(Topics.PROPOSALS.suffix(), Topics.ATTEMPTS.suffix(),
            Topics.UNKNOWN_OUTCOMES.suffix());
    static final int MAX_ATTEMPTS = 3;
    /** Transaction states that are not over yet. */
    private static final Set<TransactionState> OPEN = HangingTransactions.OPEN_AT_COORDINATOR;

    private final String bootstrap;
    private final String prefix;
    private final String inputMarker;
    private final String plantedSecret;
    private final Duration hangingAfter;
    private final Duration transactionsEndWithin;
    private int requiredReplicas;
    private int requiredMinIsr;
    private Map<String, java.security.PublicKey> trustedKeys;
    private Set<String> approvalTools = Set.of();
    private McpLog mcpLog;
    private Set<String> mcpCalls = Set.of();

    public Checker(String bootstrap, String prefix, String inputMarker, String plantedSecret, Duration hangingAfter) {
        this(bootstrap, prefix, inputMarker, plantedSecret, hangingAfter, hangingAfter);
    }

    /**
     * @param hangingAfter a transaction ongoing for longer than this at the end is hanging (f)
     * @param transactionsEndWithin how long a transaction open at the end may take to end (k)
     */
    public Checker(String bootstrap, String prefix, String inputMarker, String plantedSecret, Duration hangingAfter,
                   Duration transactionsEndWithin) {
        this.bootstrap = bootstrap;
        this.prefix = prefix;
        this.inputMarker = inputMarker;
        this.plantedSecret = plantedSecret;
        this.hangingAfter = hangingAfter;
        this.transactionsEndWithin = transactionsEndWithin;
    }

    /**
     * Adds check (l) for a replicated cluster: every topic with {@code replicas} replicas, an effective
     * {@code min.insync.replicas} of at least {@code minIsr} and unclean leader election off
     * ({@link ReplicationCheck}).
     */
    public Checker requireReplication(int replicas, int minIsr) {
        this.requiredReplicas = replicas;
        this.requiredMinIsr = minIsr;
        return this;
    }

    /**
     * Adds check (m): every provider effect of one of {@code tools} carries exactly one valid approval, an
     * {@code APPROVE} decision signed by one of {@code keys} (by key id) for the same action digest
     * ({@link ApprovalCheck}).
     */
    public Checker requireApprovals(Map<String, java.security.PublicKey> keys, Set<String> tools) {
        this.trustedKeys = Map.copyOf(keys);
        this.approvalTools = Set.copyOf(tools);
        return this;
    }

    /**
     * Adds check (n): every one of {@code calls} (action keys of the calls the load issued through the MCP gateway)
     * has at most one execution at the upstream ({@code log}), each execution names one of them, and each effect's
     * key is reserved by exactly that action ({@link McpCheck}); the executions also join the provider log.
     */
    public Checker requireMcp(McpLog log, Set<String> calls) {
        this.mcpLog = log;
        this.mcpCalls = Set.copyOf(calls);
        return this;
    }

    public CheckResult check(List<ExpectedAction> expected, ProviderLog provider) throws Exception {
        return check(expected, provider, ProbeLog.NONE);
    }

    public CheckResult check(List<ExpectedAction> expected, ProviderLog webhook, ProbeLog probe) throws Exception {
        CheckResult result = new CheckResult();
        ProviderLog provider = webhook;
        if (mcpLog != null) {
            Map<String, ProviderLog.Entry> both = new HashMap<>(webhook.byKey());
            mcpLog.asProviderEntries().forEach((key, entry) -> both.merge(key, entry, (a, b) -> new ProviderLog.Entry(
                    a.posts() + b.posts(), a.applied() + b.applied(), a.effects() + b.effects(),
                    a.lookups() + b.lookups())));
            provider = new ProviderLog(both);
        }
        Map<String, List<ConsumerRecord<byte[], byte[]>>> topics = new LinkedHashMap<>();
        for (TopicSpec<?, ?> spec : Topics.ALL) {
            topics.put(spec.suffix(), readAll(spec.name(prefix)));
            result.count("records." + spec.suffix(), topics.get(spec.suffix()).size());
        }
        checkLeaks(topics, result);

        Map<String, List<AttemptReservation>> reservations = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : topics.get(Topics.ATTEMPTS.suffix())) {
            AttemptReservation a = Topics.ATTEMPTS.valueSerde().deserializer().deserialize(null, r.value());
            reservations.computeIfAbsent(ActionKey.format(a.getTaskId(), a.getToolCallId()), k -> new ArrayList<>()).add(a);
        }
        Map<String, List<Receipt>> receipts = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : topics.get(Topics.RECEIPTS.suffix())) {
            Receipt receipt = Topics.RECEIPTS.valueSerde().deserializer().deserialize(null, r.value());
            receipts.computeIfAbsent(ActionKey.format(receipt.getTaskId(), receipt.getToolCallId()), k -> new ArrayList<>())
                    .add(receipt);
        }
        Map<String, Integer> outcomesPerAttempt = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : topics.get(Topics.OUTCOMES.suffix())) {
            AttemptOutcome o = Topics.OUTCOMES.valueSerde().deserializer().deserialize(null, r.value());
            outcomesPerAttempt.merge(ActionKey.format(o.getTaskId(), o.getToolCallId()) + "#" + o.getAttempt(), 1,
                    Integer::sum);
        }
        result.count("outcomes.attempts", outcomesPerAttempt.size());
        result.count("outcomes.attempts.more-than-one-record",
                outcomesPerAttempt.values().stream().filter(n -> n > 1).count());
        int reconciliations = 0;
        for (ConsumerRecord<byte[], byte[]> r : topics.get(Topics.RECONCILIATIONS.suffix())) {
            Reconciliation rec = Topics.RECONCILIATIONS.valueSerde().deserializer().deserialize(null, r.value());
            Objects.requireNonNull(rec.getVerdict());
            reconciliations++;
        }
        result.count("reconciliations", reconciliations);

        // (a) at most one dispatch per idempotency key at the provider
        Map<String, String> keyOwner = new HashMap<>();
        Map<String, Set<String>> keyOwners = new HashMap<>();
        reservations.forEach((action, list) -> list.forEach(a -> {
            keyOwner.put(a.getIdempotencyKey(), action);
            keyOwners.computeIfAbsent(a.getIdempotencyKey(), k -> new TreeSet<>()).add(action);
        }));
        int keysChecked = 0;
        for (Map.Entry<String, ProviderLog.Entry> e : provider.byKey().entrySet()) {
            keysChecked++;
            ProviderLog.Entry entry = e.getValue();
            if (entry.applied() > 1 || entry.effects() > 1) {
                result.duplicate("(a) idempotency key " + e.getKey() + " reached the provider's apply step "
                        + entry.applied() + " times (" + entry.posts() + " requests, " + entry.effects()
                        + " effect(s) recorded)", Math.max(entry.applied(), entry.effects()) - 1);
            }
            if (entry.effects() > 0 && !keyOwner.containsKey(e.getKey())) {
                result.violation("(c) provider effect for key " + e.getKey() + " that no reserved attempt carries");
                result.lost(1);
            }
            // (i) the effect maps to the reservations of exactly one action
            Set<String> owners = keyOwners.getOrDefault(e.getKey(), Set.of());
            if (Math.max(entry.applied(), entry.effects()) > 0) {
                result.count("(i) provider effects mapped to reservations", 1);
                if (owners.size() > 1) {
                    result.violation("(i) provider effect for key " + e.getKey() + " maps to the reservations of "
                            + owners.size() + " actions " + owners);
                }
            }
        }
        result.count("(a) provider idempotency keys checked", keysChecked);
        if (mcpLog != null) {
            McpCheck.run(mcpLog, mcpCalls, keyOwners, result);
        }
        if (trustedKeys != null) {
            List<io.actiongate.avro.Decision> decisions = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : topics.get(Topics.DECISIONS.suffix())) {
                decisions.add(Topics.DECISIONS.valueSerde().deserializer().deserialize(null, r.value()));
            }
            result.count("(m) decisions read", decisions.size());
            ApprovalCheck.run(reservations, decisions, provider, trustedKeys, approvalTools, result);
        }

        Map<String, ExpectedAction> byKey = new HashMap<>();
        expected.forEach(a -> byKey.put(a.key(), a));
        int settled = 0;
        for (ExpectedAction action : expected) {
            if (!action.acked()) {
                result.count("actions.not-acked-by-broker", 1);
                continue;
            }
            result.count("actions.checked", 1);
            result.count("actions." + action.kind(), 1);
            List<Receipt> history = receipts.getOrDefault(action.key(), List.of());
            List<AttemptReservation> attempts = reservations.getOrDefault(action.key(), List.of());
            if (checkAction(action, history, attempts, provider, result)) {
                settled++;
            }
        }
        result.count("(b) actions settled (terminal or UNKNOWN)", settled);
        for (String key : receipts.keySet()) {
            if (!byKey.containsKey(key)) {
                result.violation("(b) receipts for " + key + ", an action the load never proposed");
            }
        }
        checkProbe(probe, result);
        checkTransactions(result);
        checkTransactionsEnd(result);
        if (requiredReplicas > 0) {
            try (Admin admin = KafkaClients.of(bootstrap, Map.of()).admin("chaos-checker").create()) {
                ReplicationCheck.Findings findings = ReplicationCheck.run(admin, requiredReplicas, requiredMinIsr);
                result.count("(l) topics checked for replication " + requiredReplicas + ", min.insync.replicas "
                        + requiredMinIsr, findings.topics().size());
                findings.problems().forEach(p -> result.violation("(l) " + p));
            }
        }
        return result;
    }

    /** Checks (b)–(e) for one action; true when it settled. */
    private boolean checkAction(ExpectedAction action, List<Receipt> history, List<AttemptReservation> attempts,
                                ProviderLog provider, CheckResult result) {
        String key = action.key();
        // (e) attempts: at most three, numbered 1..n, each reserved once, one idempotency key for the action
        Map<Integer, Integer> reservationsByAttempt = new TreeMap<>();
        Set<String> allKeys = new HashSet<>();
        for (AttemptReservation a : attempts) {
            reservationsByAttempt.merge(a.getAttempt(), 1, Integer::sum);
            allKeys.add(a.getIdempotencyKey());
        }
        result.count("(e) attempts checked", reservationsByAttempt.size());
        if (reservationsByAttempt.size() > MAX_ATTEMPTS) {
            result.violation("(e) " + key + " has " + reservationsByAttempt.size() + " attempts");
        }
        int expectedNumber = 1;
        for (int n : reservationsByAttempt.keySet()) {
            if (n != expectedNumber++) {
                result.violation("(e) " + key + " attempts are not numbered 1..n: " + reservationsByAttempt.keySet());
                break;
            }
        }
        if (allKeys.size() > 1) {
            result.violation("(e) " + key + " has " + allKeys.size() + " idempotency keys; one per action");
        }
        reservationsByAttempt.forEach((n, count) -> {
            if (count > 1) {
                result.violation("(d) " + key + " attempt " + n + " reserved " + count + " times");
            }
        });

        // (d) no decision, outcome or reconciliation applied twice: count state transitions
        int decisionsApplied = 0;
        String decisionId = null;
        int terminals = 0;
        int reconciled = 0;
        boolean sawUnknown = false;
        Receipt previous = null;
        Set<Integer> succeededAttempts = new TreeSet<>();
        for (Receipt r : history) {
            for (AttemptSummary s : r.getAttempts()) {
                if (s.getStatus() == OutcomeStatus.SUCCEEDED) {
                    succeededAttempts.add(s.getAttempt());
                }
            }
            if (previous != null && sameState(previous, r)) {
                continue;
            }
            // (h) committed receipts never go backwards in the lifecycle table, attempts are never dropped
            if (previous != null && previous.getStatus() != r.getStatus()
                    && !ReceiptOrder.forward(previous.getStatus(), r.getStatus())) {
                result.violation("(h) " + key + " went backwards from " + previous.getStatus() + " to "
                        + r.getStatus() + " (not reachable in the lifecycle table)");
            }
            if (previous != null && !attemptNumbers(r).containsAll(attemptNumbers(previous))) {
                result.violation("(h) " + key + " receipt dropped attempts: " + attemptNumbers(previous) + " then "
                        + attemptNumbers(r));
            }
            if (previous != null && TERMINAL.contains(previous.getStatus())) {
                result.violation("(d) " + key + " changed after terminal " + previous.getStatus() + " to "
                        + r.getStatus());
            }
            // a decision moves the action out of WAITING_APPROVAL; nothing ever moves it back
            if (previous != null && previous.getStatus() == ReceiptStatus.WAITING_APPROVAL
                    && r.getStatus() != ReceiptStatus.WAITING_APPROVAL && r.getDecisionId() != null) {
                decisionsApplied++;
            }
            if (r.getDecisionId() != null) {
                if (decisionId != null && !decisionId.equals(r.getDecisionId())) {
                    result.violation("(d) " + key + " decision changed from " + decisionId + " to "
                            + r.getDecisionId());
                }
                decisionId = r.getDecisionId();
            }
            if (previous != null && previous.getStatus() != ReceiptStatus.WAITING_APPROVAL
                    && r.getStatus() == ReceiptStatus.WAITING_APPROVAL) {
                result.violation("(d) " + key + " went back to WAITING_APPROVAL from " + previous.getStatus());
            }
            if (TERMINAL.contains(r.getStatus())) {
                terminals++;
            }
            if (r.getResolvedBy() == ResolvedBy.RECONCILER
                    && (previous == null || previous.getResolvedBy() != ResolvedBy.RECONCILER)) {
                reconciled++;
            }
            if (r.getStatus() == ReceiptStatus.UNKNOWN) {
                sawUnknown = true;
            }
            List<Integer> numbers = r.getAttempts().stream().map(AttemptSummary::getAttempt).toList();
            if (numbers.size() != new HashSet<>(numbers).size()) {
                result.violation("(d) " + key + " receipt lists an attempt twice: " + numbers);
            }
            previous = r;
        }
        result.count("(d) receipt histories checked", history.isEmpty() ? 0 : 1);
        result.count("(h) receipt moves checked", Math.max(0, history.size() - 1));
        if (succeededAttempts.size() > 1) {
            result.violation("(i) " + key + " reports " + succeededAttempts.size() + " succeeded attempts "
                    + succeededAttempts + " for its one effect");
        }
        if (decisionsApplied > 1) {
            result.violation("(d) " + key + " decision applied " + decisionsApplied + " times");
        }
        if (terminals > 1) {
            result.violation("(d) " + key + " reached a terminal status " + terminals + " times");
        }
        if (reconciled > 1) {
            result.violation("(d) " + key + " reconciliation applied " + reconciled + " times");
        }

        // (b) settled
        Receipt last = history.isEmpty() ? null : history.get(history.size() - 1);
        ReceiptStatus status = last == null ? null : last.getStatus();
        boolean settled = status != null && (TERMINAL.contains(status) || status == ReceiptStatus.UNKNOWN);
        if (!settled) {
            result.violation("(b) " + key + " (" + action.kind() + ") not settled: last receipt "
                    + (status == null ? "none" : status));
            result.lost(1);
        }
        result.finalStatus(status == null ? "NONE" : status.name());

        // (o) how the run said it must end (an upgrade run's actions in flight across the replacement of the roles)
        if (action.endsIn() != null) {
            result.count("(o) actions with a prescribed end", 1);
            if (status == null || !status.name().equals(action.endsIn())) {
                result.violation("(o) " + key + " (" + action.kind() + ") ended " + (status == null ? "without a "
                        + "receipt" : status) + ", expected " + action.endsIn());
            }
        }
        if (action.attemptsAtLeast() > 0 && attempts.size() < action.attemptsAtLeast()) {
            // what the provider and the receipts saw of it: whether the fault aimed at its first dispatch was met
            result.violation("(o) " + key + " (" + action.kind() + ") was reserved " + attempts.size()
                    + " time(s), expected at least " + action.attemptsAtLeast() + "; provider " + allKeys.stream()
                    .map(k -> k + "=" + provider.entry(k)).toList() + "; receipts " + history.stream()
                    .map(r -> r.getStatus() + (r.getReasonCode() == null ? "" : "/" + r.getReasonCode()))
                    .toList());
        }
        if (action.resolvedBy() != null && (last == null || last.getResolvedBy() == null
                || !last.getResolvedBy().name().equals(action.resolvedBy()))) {
            result.violation("(o) " + key + " (" + action.kind() + ") resolved by "
                    + (last == null ? "nobody" : last.getResolvedBy()) + ", expected " + action.resolvedBy());
        }

        // (c) effects: exactly one for SUCCEEDED, none for other terminal statuses
        int effects = 0;
        for (String k : allKeys) {
            ProviderLog.Entry entry = provider.entry(k);
            effects += Math.max(entry.applied(), entry.effects());
        }
        result.count("(c) effects attributed to actions", effects);
        if (status == ReceiptStatus.SUCCEEDED && effects != 1) {
            if (effects == 0) {
                result.violation("(c) " + key + " SUCCEEDED without a provider effect");
                result.lost(1);
            } else {
                result.duplicate("(c) " + key + " SUCCEEDED with " + effects + " provider effects", effects - 1);
            }
        } else if (status != null && TERMINAL.contains(status) && status != ReceiptStatus.SUCCEEDED && effects > 0) {
            result.violation("(c) " + key + " ended " + status + " but the provider applied " + effects
                    + " effect(s): an effect without a receipt");
            result.lost(effects);
        } else if (status == ReceiptStatus.UNKNOWN && effects > 1) {
            result.duplicate("(c) " + key + " UNKNOWN with " + effects + " provider effects", effects - 1);
        }
        if (sawUnknown) {
            result.unknown(status == null ? "NONE" : status.name()
                    + (last.getResolvedBy() == null ? "" : " by " + last.getResolvedBy())
                    + (status == ReceiptStatus.UNKNOWN ? (effects > 0 ? " (provider has the effect)"
                    : " (provider has no effect)") : ""));
        }
        return settled;
    }

    private static boolean sameState(Receipt a, Receipt b) {
        return a.getStatus() == b.getStatus() && a.getResolvedBy() == b.getResolvedBy()
                && Objects.equals(a.getDecisionId(), b.getDecisionId())
                && Objects.equals(a.getReasonCode(), b.getReasonCode())
                && summaries(a).equals(summaries(b));
    }

    private static Set<Integer> attemptNumbers(Receipt r) {
        Set<Integer> numbers = new TreeSet<>();
        r.getAttempts().forEach(a -> numbers.add(a.getAttempt()));
        return numbers;
    }

    private static List<String> summaries(Receipt r) {
        return r.getAttempts().stream().map(s -> s.getAttempt() + ":" + s.getStatus()).toList();
    }

    /** (g) no input outside the input topics, no planted secret anywhere. */
    private void checkLeaks(Map<String, List<ConsumerRecord<byte[], byte[]>>> topics, CheckResult result) {
        byte[] marker = inputMarker.getBytes(StandardCharsets.UTF_8);
        byte[] secret = plantedSecret.getBytes(StandardCharsets.UTF_8);
        long scanned = 0;
        for (Map.Entry<String, List<ConsumerRecord<byte[], byte[]>>> e : topics.entrySet()) {
            boolean inputsAllowed = INPUT_TOPICS.contains(e.getKey());
            for (ConsumerRecord<byte[], byte[]> r : e.getValue()) {
                scanned++;
                for (byte[] part : new byte[][] {r.key(), r.value()}) {
                    if (part == null) {
                        continue;
                    }
                    if (indexOf(part, secret) >= 0) {
                        result.violation("(g) the planted secret is in " + e.getKey() + " at offset " + r.offset());
                    }
                    if (!inputsAllowed && indexOf(part, marker) >= 0) {
                        result.violation("(g) an input body is in " + e.getKey() + " at offset " + r.offset());
                    }
                }
            }
        }
        result.count("(g) records scanned for inputs and the planted secret", scanned);
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /**
     * (f) transactions still ongoing at the end for longer than {@code hangingAfter}: in the coordinator's listing,
     * and on the partitions ({@link HangingTransactions}).
     */
    private void checkTransactions(CheckResult result) throws Exception {
        try (Admin admin = KafkaClients.of(bootstrap, Map.of()).admin("chaos-checker").create()) {
            List<TransactionListing> all = new ArrayList<>(admin.listTransactions().all().get(60, TimeUnit.SECONDS));
            long ongoing = all.stream().filter(t -> t.state() == TransactionState.ONGOING).count();
            List<TransactionListing> hanging = new ArrayList<>(admin.listTransactions(new ListTransactionsOptions()
                    .filterStates(List.of(TransactionState.ONGOING)).filterOnDuration(hangingAfter.toMillis()))
                    .all().get(60, TimeUnit.SECONDS));
            result.count("(f) transactional ids listed", all.size());
            result.count("(f) transactions ongoing at the end", ongoing);
            for (TransactionListing t : hanging) {
                result.violation("(f) hanging transaction " + t.transactionalId() + " (producer " + t.producerId()
                        + ") open longer than " + hangingAfter.toSeconds() + " s");
            }
            // the coordinator's listing misses a transaction it ended or forgot while a partition still holds it
            // open (its markers never written); only the partitions themselves show it
            List<TopicPartition> partitions = allPartitions(admin);
            List<HangingTransactions.Hanging> held = HangingTransactions.find(admin, partitions, hangingAfter,
                    System.currentTimeMillis(), Duration.ofSeconds(60));
            result.count("(f) partitions asked for open transactions", partitions.size());
            result.count("(f) partitions held by a hanging transaction", held.size());
            for (HangingTransactions.Hanging h : held) {
                result.violation("(f) hanging transaction on " + h.describe());
            }
            result.hanging(hanging.size() + held.size());
        }
    }

    /** Every partition of every topic, the internal ones ({@code __consumer_offsets}, ...) included. */
    private static List<TopicPartition> allPartitions(Admin admin) throws Exception {
        Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names()
                .get(60, TimeUnit.SECONDS);
        return HangingTransactions.partitionsOf(admin, topics, Duration.ofSeconds(60));
    }

    /** (j) no aborted probe record visible under read_committed, no committed one missing or doubled. */
    private void checkProbe(ProbeLog probe, CheckResult result) {
        if (probe.topicSuffix() == null) {
            result.count("(j) probe transactions checked", 0);
            return;
        }
        Map<String, Integer> seen = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(prefix + probe.topicSuffix())) {
            if (r.value() != null) {
                seen.merge(new String(r.value(), StandardCharsets.UTF_8), 1, Integer::sum);
            }
        }
        Map<ProbeLog.Outcome, Long> outcomes = new TreeMap<>();
        probe.transactions().forEach((id, txn) -> {
            outcomes.merge(txn.outcome(), 1L, Long::sum);
            for (String value : txn.values()) {
                int n = seen.getOrDefault(value, 0);
                switch (txn.outcome()) {
                    case ABORTED -> {
                        if (n > 0) {
                            result.violation("(j) aborted record " + value + " (probe transaction " + id
                                    + ") read by a read_committed consumer");
                        }
                    }
                    case COMMITTED -> {
                        if (n == 0) {
                            result.violation("(j) committed record " + value + " (probe transaction " + id
                                    + ") missing under read_committed");
                            result.lost(1);
                        } else if (n > 1) {
                            result.duplicate("(j) committed record " + value + " (probe transaction " + id
                                    + ") read " + n + " times", n - 1);
                        }
                    }
                    default -> {
                        // the broker may have committed or aborted it: either is fine, as long as it is whole
                    }
                }
            }
        });
        result.count("(j) probe transactions checked", probe.transactions().size());
        outcomes.forEach((o, n) -> result.count("(j) probe transactions " + o, n));
        result.count("(j) probe records read", seen.values().stream().mapToLong(Integer::longValue).sum());
    }

    /**
     * (k) every transaction open at the end ends: it completes, or a later transaction or producer epoch (a fenced
     * or restarted producer; the coordinator's abort of a timed-out one bumps the epoch) takes its place, within
     * {@code transactionsEndWithin}.
     */
    private void checkTransactionsEnd(CheckResult result) throws Exception {
        try (Admin admin = KafkaClients.of(bootstrap, Map.of()).admin("chaos-checker").create()) {
            List<String> ids = admin.listTransactions().all().get(60, TimeUnit.SECONDS).stream()
                    .map(TransactionListing::transactionalId).toList();
            Map<String, TransactionDescription> open = new TreeMap<>();
            if (!ids.isEmpty()) {
                admin.describeTransactions(ids).all().get(60, TimeUnit.SECONDS).forEach((id, d) -> {
                    if (OPEN.contains(d.state())) {
                        open.put(id, d);
                    }
                });
            }
            result.count("(k) transactions open at the end", open.size());
            long deadline = System.currentTimeMillis() + transactionsEndWithin.toMillis();
            Map<String, TransactionDescription> still = new TreeMap<>(open);
            while (!still.isEmpty()) {
                Map<String, TransactionDescription> now = admin.describeTransactions(still.keySet()).all()
                        .get(60, TimeUnit.SECONDS);
                still.entrySet().removeIf(e -> ended(e.getValue(), now.get(e.getKey())));
                if (still.isEmpty() || System.currentTimeMillis() > deadline) {
                    break;
                }
                Thread.sleep(500);
            }
            result.count("(k) transactions that ended", open.size() - still.size());
            still.forEach((id, d) -> result.violation("(k) transaction " + id + " (producer " + d.producerId()
                    + ", epoch " + d.producerEpoch() + ", coordinator " + d.coordinatorId() + ", " + d.state()
                    + " on " + d.topicPartitions() + ") did not end within " + transactionsEndWithin.toSeconds()
                    + " s"));
        }
    }

    private static boolean ended(TransactionDescription before, TransactionDescription now) {
        return now == null || !OPEN.contains(now.state()) || now.producerId() != before.producerId()
                || now.producerEpoch() != before.producerEpoch()
                || !now.transactionStartTimeMs().equals(before.transactionStartTimeMs());
    }

    private List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.of(bootstrap, Map.of()).consumer("chaos-checker")
                .create(new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(60)).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            // under read_committed the end offsets are the last stable offsets
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(60));
            long deadline = System.currentTimeMillis() + 120_000;
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("cannot read " + topic + " to its end within 120 s");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        // per partition in offset order; every key lives on one partition, so per-key order is the log's order
        return records;
    }
}
