package io.actiongate.configuration;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;

import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.config.CommonConfig;
import io.actiongate.executor.ExecutorConfig;
import io.actiongate.gate.GateConfig;
import io.actiongate.http.HttpServerConfig;
import io.actiongate.http.ProposalApiConfig;
import io.actiongate.mcp.GatewayConfig;
import io.actiongate.node.NodeConfig;
import io.actiongate.notifier.NotifierConfig;
import io.actiongate.reconciler.ReconcilerConfig;
import io.actiongate.storage.ObjectStoreConfig;

/**
 * {@code docs/configuration.md} is what the ConfigDefs render ({@link ConfigurationReference}), and every key a
 * configuration class reads is in some ConfigDef, so the reference documents it.
 */
class ConfigurationReferenceTest {

    static final String REGENERATE = "mvn -B -o -pl devkit -am -Dtest=ConfigurationReferenceTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dconfiguration.reference.write=true verify -DskipITs";

    private static final Path DOC = Path.of("..", "docs", "configuration.md");

    @Test
    void shouldMatchTheCommittedConfigurationReference() throws IOException {
        String expected = ConfigurationReference.markdown();
        if (Boolean.getBoolean("configuration.reference.write")) {
            Files.writeString(DOC, expected, StandardCharsets.UTF_8);
        }
        String committed = Files.exists(DOC) ? Files.readString(DOC, StandardCharsets.UTF_8) : "";
        assertThat(committed).as("docs/configuration.md is generated from the ConfigDefs and differs from what they "
                + "render now; regenerate it with\n  " + REGENERATE + "\nand commit it").isEqualTo(expected);
    }

    @Test
    void shouldRenderEveryKeyOfEveryDefinitionOnce() {
        String doc = ConfigurationReference.markdown();
        for (ConfigDef def : ConfigurationReference.allDefs()) {
            for (String key : def.names()) {
                assertThat(doc).as("reference row of %s", key).contains("| `" + key + "` |");
            }
        }
        assertThat(doc).as("a validator or default without a stable text (Object.toString)")
                .doesNotContain("$$Lambda").doesNotContainPattern("[A-Za-z0-9$]+@[0-9a-f]{6,8}\\b");
        assertThat(doc).as("the machine's temporary directory").doesNotContain(System.getProperty("java.io.tmpdir")
                + "/");
    }

    /** A configuration as the classes receive it, recording every key they look up. */
    private static final class RecordingMap extends HashMap<String, String> {
        private static final long serialVersionUID = 1L;
        final Set<String> read = new TreeSet<>();

        RecordingMap(Map<String, String> values) {
            super(values);
        }

        @Override
        public String get(Object key) {
            read.add((String) key);
            return super.get(key);
        }

        @Override
        public String getOrDefault(Object key, String defaultValue) {
            read.add((String) key);
            return super.getOrDefault(key, defaultValue);
        }

        @Override
        public boolean containsKey(Object key) {
            read.add((String) key);
            return super.containsKey(key);
        }
    }

    private static Map<String, String> everyRoleMinimal() {
        Map<String, String> c = new LinkedHashMap<>();
        c.put(ApproverConfig.PUBLIC_URL, "https://approve.example.com");
        c.put(ApproverConfig.OIDC_ISSUER, "https://idp.example.com/realms/acme");
        c.put(ApproverConfig.OIDC_CLIENT_ID, "actiongate-approver");
        c.put(ApproverConfig.SIGNING_KEY_FILE, "/var/run/secrets/approver/approver-1.key");
        c.put(ApproverConfig.SIGNING_KEY_ID, "approver-1");
        c.put(GatewayConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092");
        c.put(GatewayConfig.TOKENS_FILE_CONFIG, "/run/secrets/mcp-hosts");
        c.put(GatewayConfig.REVIEW_URL_CONFIG, "https://review.example/{action_key}");
        c.put(GatewayConfig.UPSTREAMS_CONFIG, "notes");
        c.put(GatewayConfig.UPSTREAM_PREFIX + "notes.url", "http://notes:3000");
        return c;
    }

    @Test
    void shouldFindEveryKeyAConfigurationClassReadsInAConfigDef() {
        List<Consumer<Map<String, String>>> readers = List.of(
                ApproverConfig::from,
                NotifierConfig::from,
                GatewayConfig::from,
                HttpServerConfig::from,
                ProposalApiConfig::new,
                NodeConfig::new,
                CommonConfig::new,
                GateConfig::new,
                ExecutorConfig::new,
                ReconcilerConfig::new,
                ObjectStoreConfig::new);
        Set<String> read = new TreeSet<>();
        for (Consumer<Map<String, String>> reader : readers) {
            RecordingMap config = new RecordingMap(everyRoleMinimal());
            reader.accept(config);
            read.addAll(config.read);
        }
        // the recording sees the hand-read keys: the gate's key the approver falls back to, the approver key
        // the proposal API takes its review page from
        assertThat(read).contains(GateConfig.APPROVAL_TIMEOUT_CONFIG, ApproverConfig.PUBLIC_URL,
                NotifierConfig.REMINDER_BEFORE,
                GatewayConfig.PORT_CONFIG, "mcp.gateway.upstream.notes.url");

        Set<String> defined = new TreeSet<>();
        List<Pattern> named = new java.util.ArrayList<>();
        for (ConfigDef def : ConfigurationReference.allDefs()) {
            for (String key : def.names()) {
                if (key.contains("<")) {
                    named.add(Pattern.compile(Pattern.quote(key).replaceAll("<[a-z]+>", "\\\\E[^.]+\\\\Q")));
                } else {
                    defined.add(key);
                }
            }
        }
        assertThat(read).as("keys read by a configuration class but in no ConfigDef (so not in "
                + "docs/configuration.md)").allSatisfy(key -> assertThat(defined.contains(key)
                        || named.stream().anyMatch(p -> p.matcher(key).matches())).as(key).isTrue());
    }
}
