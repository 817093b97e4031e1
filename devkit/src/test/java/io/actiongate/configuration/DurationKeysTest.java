package io.actiongate.configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.cli.commands.DurationConverter;
import io.actiongate.config.CommonConfig;
import io.actiongate.config.DurationParser;
import io.actiongate.executor.ExecutorConfig;
import io.actiongate.gate.GateConfig;
import io.actiongate.node.NodeConfig;
import io.actiongate.notifier.NotifierConfig;
import io.actiongate.reconciler.ReconcilerConfig;
import io.actiongate.storage.ObjectStoreConfig;

/**
 * Every duration key of every role reads one syntax ({@link DurationParser}): a value one role accepts for a key,
 * every other role reading that key accepts too, with the same meaning. The dev kit's class path is the one that
 * holds every role's configuration.
 */
class DurationKeysTest {

    /** Every role's {@link ConfigDef}. */
    private static final Map<String, ConfigDef> DEFS = new LinkedHashMap<>();

    static {
        DEFS.put("common", CommonConfig.configDef());
        DEFS.put("gate", GateConfig.CONFIG_DEF);
        DEFS.put("executor", ExecutorConfig.CONFIG);
        DEFS.put("reconciler", ReconcilerConfig.CONFIG);
        DEFS.put("node", NodeConfig.DEF);
        DEFS.put("storage", ObjectStoreConfig.configDef());
        // notifier.approval.wait has no default to parse: unset means the gate's gate.approval.timeout (below)
        ConfigDef notifier = new ConfigDef();
        NotifierConfig.CONFIG_DEF.configKeys().values().stream()
                .filter(k -> !k.name.equals(NotifierConfig.APPROVAL_WAIT)).forEach(notifier::define);
        DEFS.put("notifier", notifier);
    }

    /** The approver's duration keys (it reads a flat map, not a ConfigDef) and how its settings expose them. */
    private static final Map<String, Function<ApproverConfig, Duration>> APPROVER = new LinkedHashMap<>();

    static {
        APPROVER.put(ApproverConfig.DECISION_TTL, ApproverConfig::decisionTtl);
        APPROVER.put(ApproverConfig.CHALLENGE_TTL, ApproverConfig::challengeTtl);
        APPROVER.put(ApproverConfig.SESSION_IDLE, ApproverConfig::sessionIdle);
        APPROVER.put(ApproverConfig.SESSION_MAX, ApproverConfig::sessionMax);
        APPROVER.put(ApproverConfig.APPROVAL_WAIT, ApproverConfig::approvalWait);
        APPROVER.put(ApproverConfig.ENROL_WINDOW, ApproverConfig::enrolWindow);
        // shared with the gate: the approver shows the time left from the gate's own setting
        APPROVER.put(GateConfig.APPROVAL_TIMEOUT_CONFIG, ApproverConfig::approvalWait);
    }

    private static final Pattern LOOKS_LIKE_DURATION = Pattern.compile("\\d+(ms|s|m|h|d)|P.*");

    /** The same duration in every spelling the parser accepts. */
    private static List<String> spellings(Duration d) {
        List<String> s = new ArrayList<>();
        long ms = d.toMillis();
        s.add(Long.toString(ms));
        s.add(ms + "ms");
        s.add(d.toString()); // ISO-8601, e.g. PT24H
        if (ms % 1000 == 0) {
            s.add(ms / 1000 + "s");
        }
        if (ms % 60_000 == 0) {
            s.add(ms / 60_000 + "m");
        }
        if (ms % 3_600_000 == 0) {
            s.add(ms / 3_600_000 + "h");
        }
        if (ms % 86_400_000 == 0 && ms > 0) {
            s.add(ms / 86_400_000 + "d");
        }
        return s;
    }

    private static Map<String, DurationParser.Range> durationKeys() {
        Map<String, DurationParser.Range> keys = new LinkedHashMap<>();
        DEFS.values().forEach(def -> def.configKeys().values().forEach(k -> {
            if (k.validator instanceof DurationParser.Range r) {
                keys.put(k.name, r);
            }
        }));
        return keys;
    }

    @Test
    void shouldValidateEveryDurationLookingKeyWithTheOneParser() {
        List<String> own = new ArrayList<>();
        DEFS.forEach((role, def) -> def.configKeys().values().forEach(k -> {
            if (k.type == ConfigDef.Type.STRING && k.defaultValue instanceof String v
                    && LOOKS_LIKE_DURATION.matcher(v).matches() && !(k.validator instanceof DurationParser.Range)) {
                own.add(role + ": " + k.name);
            }
        }));
        assertThat(own).as("duration keys not validated (and so not read) with DurationParser").isEmpty();
        assertThat(durationKeys()).containsKeys(GateConfig.APPROVAL_TIMEOUT_CONFIG, GateConfig.DEDUPE_WINDOW_CONFIG,
                ExecutorConfig.POLL_TIMEOUT_CONFIG, ReconcilerConfig.LOOKUP_BUDGET_CONFIG);
    }

    @Test
    void shouldAcceptEverySpellingOfEveryDurationKeyWithTheSameMeaning() {
        Map<String, DurationParser.Range> keys = durationKeys();
        for (Map.Entry<String, DurationParser.Range> e : keys.entrySet()) {
            String key = e.getKey();
            ConfigDef def = DEFS.values().stream().filter(d -> d.configKeys().containsKey(key)).findFirst()
                    .orElseThrow();
            Duration value = DurationParser.parse((String) def.configKeys().get(key).defaultValue);
            if (value.isZero()) {
                value = e.getValue().max().compareTo(Duration.ofSeconds(1)) >= 0 ? Duration.ofSeconds(1)
                        : e.getValue().max();
            }
            for (String spelling : spellings(value)) {
                Map<String, Object> parsed = def.parse(Map.of(key, spelling));
                assertThat(DurationParser.parse((String) parsed.get(key))).as(key + "=" + spelling)
                        .isEqualTo(value);
                assertThat(DurationConverter.parse(spelling)).as("CLI option " + spelling).isEqualTo(value);
            }
        }
    }

    @Test
    void shouldReadTheGatesApprovalTimeoutInTheNotifierInEverySpelling() {
        // the notifier's deadlines are the gate's: the same value means the same wait
        for (Duration value : List.of(Duration.ofDays(7), Duration.ofMinutes(90), Duration.ofMillis(1500))) {
            for (String spelling : spellings(value)) {
                Map<String, String> c = new HashMap<>();
                c.put(ApproverConfig.PUBLIC_URL, "https://approve.example.com");
                c.put(NotifierConfig.STATE_RETENTION, "3650d");
                c.put(GateConfig.APPROVAL_TIMEOUT_CONFIG, spelling);
                assertThat(NotifierConfig.from(c).approvalWait()).as(spelling).isEqualTo(value);
            }
        }
    }

    @Test
    void shouldReadEveryApproverDurationKeyInEverySpellingTheGateAccepts() {
        for (Map.Entry<String, Function<ApproverConfig, Duration>> e : APPROVER.entrySet()) {
            for (Duration value : List.of(Duration.ofDays(7), Duration.ofMinutes(90), Duration.ofMillis(1500))) {
                for (String spelling : spellings(value)) {
                    Map<String, String> c = approverMinimal();
                    c.put(e.getKey(), spelling);
                    assertThat(e.getValue().apply(ApproverConfig.from(c))).as(e.getKey() + "=" + spelling)
                            .isEqualTo(value);
                }
            }
        }
    }

    @Test
    void shouldStartTheApproverWithTheGatesOwnApprovalTimeout() {
        Map<String, String> c = approverMinimal();
        c.put(GateConfig.APPROVAL_TIMEOUT_CONFIG, "7d");
        Map<String, String> gate = new HashMap<>();
        gate.put(GateConfig.APPROVAL_TIMEOUT_CONFIG, "7d");

        assertThat(ApproverConfig.from(c).approvalWait()).isEqualTo(new GateConfig(gate).approvalTimeout())
                .isEqualTo(Duration.ofDays(7));
    }

    @Test
    void shouldRefuseWhatNoRoleAccepts() {
        for (String key : APPROVER.keySet()) {
            for (String bad : List.of("soon", "-5s", "0")) {
                Map<String, String> c = approverMinimal();
                c.put(key, bad);
                assertThatThrownBy(() -> ApproverConfig.from(c)).as(key + "=" + bad)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key);
            }
        }
    }

    private static Map<String, String> approverMinimal() {
        Map<String, String> c = new HashMap<>();
        c.put(ApproverConfig.PUBLIC_URL, "https://approve.example.com");
        c.put(ApproverConfig.OIDC_ISSUER, "https://idp.example.com/realms/acme");
        c.put(ApproverConfig.OIDC_CLIENT_ID, "actiongate-approver");
        c.put(ApproverConfig.SIGNING_KEY_FILE, "/var/run/secrets/approver/approver-1.key");
        c.put(ApproverConfig.SIGNING_KEY_ID, "approver-1");
        return c;
    }
}
