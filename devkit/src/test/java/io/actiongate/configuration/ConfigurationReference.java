package io.actiongate.configuration;

import java.util.List;
import java.util.Set;

import org.apache.kafka.common.config.ConfigDef;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.config.CommonConfig;
import io.actiongate.config.ConfigDefs;
import io.actiongate.executor.ExecutorConfig;
import io.actiongate.gate.GateConfig;
import io.actiongate.http.HttpServerConfig;
import io.actiongate.http.ProposalApiConfig;
import io.actiongate.mcp.GatewayConfig;
import io.actiongate.mcp.McpGateway;
import io.actiongate.node.NodeConfig;
import io.actiongate.notifier.NotifierConfig;
import io.actiongate.reconciler.ReconcilerConfig;
import io.actiongate.storage.ObjectStoreConfig;

/**
 * {@code docs/configuration.md}, rendered from every role's {@link ConfigDef} (the dev kit's class path holds them
 * all): one section per role, one table row per key.
 */
final class ConfigurationReference {

    /** One section: a title, a sentence, the definitions it renders and the keys it leaves to another section. */
    record Section(String title, String intro, List<ConfigDef> defs, Set<String> skip) {
    }

    private ConfigurationReference() {
    }

    static List<Section> sections() {
        Set<String> common = CommonConfig.configDef().names();
        return List.of(
                new Section("Every role", "Keys every role reads. Kafka client settings (security, SASL, timeouts) "
                        + "go under `kafka.`: `kafka.security.protocol=SSL` reaches every client of every role as "
                        + "`security.protocol=SSL`.", List.of(CommonConfig.configDef()), Set.of()),
                new Section("Gate (`--roles=gate`)", "Kafka Streams settings go under `gate.streams.` (passed to "
                        + "Kafka Streams without the prefix).", List.of(GateConfig.CONFIG_DEF), common),
                new Section("Executor (`--roles=executor`)", "Its own Kafka clients take `executor.consumer.` and "
                        + "`executor.producer.` settings (without the prefix).", List.of(ExecutorConfig.CONFIG),
                        common),
                new Section("Reconciler (`--roles=reconciler`)", "Its own Kafka clients take `reconciler.consumer.` "
                        + "and `reconciler.producer.` settings (without the prefix).",
                        List.of(ReconcilerConfig.CONFIG), common),
                new Section("Node: the HTTP API of `run`", "The process-wide keys, the HTTP surface (`/v1/...`, "
                        + "`/metrics`, `/health`; `http.port` is under \"Every role\") and `POST /v1/proposals`.",
                        List.of(NodeConfig.DEF, HttpServerConfig.CONFIG_DEF, HttpServerConfig.LIMITS_DEF,
                                ProposalApiConfig.DEF),
                        Set.of(CommonConfig.HTTP_PORT_CONFIG)),
                new Section("Attachment storage", "The object store of attachments (read by the gate and the "
                        + "executor).", List.of(ObjectStoreConfig.configDef()), Set.of()),
                new Section("Approval service (`--roles=approver`)", "Also reads `bootstrap.servers`, "
                        + "`topic.prefix`, `kafka.*` and, unless `approver.approval.wait` is set, "
                        + "`gate.approval.timeout`.", List.of(ApproverConfig.CONFIG_DEF, ApproverConfig.NAMED_KEYS_DEF),
                        Set.of()),
                new Section("Notifier (`--roles=notifier`)", "Also reads `bootstrap.servers`, `topic.prefix`, "
                        + "`kafka.*`, `approver.public.url` (unless `notifier.review.url` is set) and "
                        + "`gate.approval.timeout` (unless `notifier.approval.wait` is set). Who is told is the policy "
                        + "kind `notify` ([docs/notifications.md](notifications.md)); where they are told, and the "
                        + "secrets for it, are these keys.",
                        List.of(NotifierConfig.CONFIG_DEF, NotifierConfig.NAMED_KEYS_DEF), Set.of()),
                new Section("MCP gateway (`actiongate mcp-gateway`)", "Also reads `kafka.*`. Each upstream named in "
                        + "`mcp.gateway.upstreams` has its own `mcp.gateway.upstream.<name>.*` keys.",
                        List.of(GatewayConfig.CONFIG_DEF,
                                io.actiongate.runtime.HttpLimits.configDef(McpGateway.LIMITS_PREFIX),
                                GatewayConfig.NAMED_KEYS_DEF), Set.of()));
    }

    /** Every definition of every section. */
    static List<ConfigDef> allDefs() {
        return sections().stream().flatMap(s -> s.defs().stream()).toList();
    }

    static String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("# Configuration reference\n\n")
                .append("<!-- Generated from the ConfigDefs by ConfigurationReferenceTest; do not edit. Regenerate: ")
                .append(ConfigurationReferenceTest.REGENERATE).append(" -->\n\n")
                .append("Every role reads one flat configuration: a `.properties` or YAML file (`--config FILE`) "
                        + "overlaid with environment variables (`ACTIONGATE_SOME_KEY` sets `some.key`, `__` a dash). "
                        + "A bad or missing value stops the process at start with the key's name. Durations take "
                        + "`500ms`, `30s`, `10m`, `8h`, `7d`, ISO-8601 (`PT8H`) or plain milliseconds. Secrets are "
                        + "given by reference, `env:NAME` or `file:PATH`, never inline. Connector settings "
                        + "(`connectors.<provider>.*`) belong to each connector.\n\n");
        for (Section s : sections()) {
            out.append("- [").append(s.title()).append("](#").append(anchor(s.title())).append(")\n");
        }
        for (Section s : sections()) {
            out.append("\n## ").append(s.title()).append("\n\n").append(s.intro()).append("\n\n");
            ConfigDef merged = new ConfigDef();
            s.defs().forEach(def -> def.configKeys().values().forEach(k -> {
                if (!merged.names().contains(k.name)) {
                    merged.define(k);
                }
            }));
            out.append(ConfigDefs.markdown(merged, s.skip()));
        }
        return out.toString().replace("\n\n\n", "\n\n");
    }

    /** GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes. */
    static String anchor(String title) {
        return title.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
    }
}
