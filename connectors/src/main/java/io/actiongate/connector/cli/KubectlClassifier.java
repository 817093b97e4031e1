package io.actiongate.connector.cli;

import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.Classification.Kind;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Classifies a {@code kubectl} argument vector (without {@code argv[0]}). Unknown verbs and flags are UNSUPPORTED. */
final class KubectlClassifier {

    /** Valid anywhere, including before the verb. */
    static final FlagTable GLOBAL = FlagTable.of(
            "-n|--namespace=", "--context=", "--cluster=", "--user=", "-s|--server=", "--kubeconfig=", "--token=",
            "--as=", "--as-group=", "--as-uid=", "--certificate-authority=", "--client-certificate=",
            "--client-key=", "--request-timeout=", "--tls-server-name=", "--cache-dir=", "-v|--v=", "--vmodule=",
            "--log-file=", "--profile=", "--profile-output=", "--username=", "--password=",
            "--insecure-skip-tls-verify", "--match-server-version", "--warnings-as-errors", "--disable-compression",
            "-h|--help");

    /** Valid after a verb. */
    static final FlagTable COMMON = GLOBAL.with(FlagTable.of(
            "-o|--output=", "-l|--selector=", "--field-selector=", "-A|--all-namespaces", "-w|--watch",
            "--watch-only", "--all", "-R|--recursive", "-k|--kustomize=", "-f|--filename=", "--show-labels",
            "--no-headers", "--show-kind", "--show-managed-fields", "--sort-by=", "-L|--label-columns=",
            "--template=", "--chunk-size=", "--ignore-not-found", "--raw=", "--dry-run", "--field-manager=",
            "--server-side", "--force-conflicts", "--force", "--grace-period=", "--now", "--wait", "--timeout=",
            "--cascade", "--overwrite", "--record", "--validate", "--prune", "--prune-allowlist=", "--subresource=",
            "--output-watch-events", "--allow-missing-template-keys", "--type=", "--replicas=",
            "--current-replicas=", "--resource-version=", "--local", "--revision=", "--to-revision=", "--for=",
            "-c|--container=", "--all-containers", "--since=", "--since-time=", "--tail=", "--timestamps",
            "--limit-bytes=", "--max-log-requests=", "--prefix", "--ignore-errors", "--pod-running-timeout=",
            "--api-group=", "--namespaced", "--verbs=", "--containers", "--use-protocol-buffers",
            "--ignore-daemonsets", "--delete-emptydir-data", "--disable-eviction", "--image=", "--port=",
            "--env=", "--labels=", "--restart=", "--name=", "--target-port=", "--protocol=", "--min=", "--max=",
            "--cpu-percent=", "--patch-file=", "-i|--stdin", "-t|--tty", "--rm", "--attach", "--quiet",
            "--types=", "--for-resources=", "--list", "--recursive-explain"));

    static final FlagTable LOGS = COMMON.with(FlagTable.of("-f|--follow", "-p|--previous"));
    static final FlagTable PATCH = COMMON.with(FlagTable.of("-p|--patch="));

    /** Selecting other credentials or another server: never through actiongate. */
    static final Set<String> AUTH_FLAGS = Set.of("--token", "--kubeconfig", "--as", "--as-group", "--as-uid",
            "--user", "--cluster", "--server", "--username", "--password", "--client-key", "--client-certificate",
            "--certificate-authority", "--insecure-skip-tls-verify", "--tls-server-name");

    static final Set<String> READ_VERBS = Set.of("get", "describe", "explain", "api-resources", "api-versions",
            "version", "top", "events", "diff", "wait");
    static final Set<String> EFFECT_VERBS = Set.of("apply", "create", "delete", "patch", "replace", "scale",
            "autoscale", "annotate", "label", "cordon", "uncordon", "drain", "taint", "set", "run", "expose");
    static final Set<String> UNBOUNDED_VERBS = Set.of("proxy", "port-forward", "exec", "attach", "cp", "edit",
            "debug");
    static final Set<String> AUTH_VERBS = Set.of("config", "certificate");

    private KubectlClassifier() {
    }

    static FlagTable tableFor(List<String> positionals) {
        if (positionals.isEmpty()) {
            return GLOBAL;
        }
        return switch (positionals.get(0)) {
            case "logs" -> LOGS;
            case "patch" -> PATCH;
            default -> COMMON;
        };
    }

    static Classification classify(List<String> args) {
        Argv argv = Argv.parse(args, KubectlClassifier::tableFor);
        if (CliClassifier.usesFlag(args, AUTH_FLAGS) || argv.flags().keySet().stream().anyMatch(AUTH_FLAGS::contains)) {
            return new Classification(Kind.REJECTED_AUTH_OR_CONFIG, "selects credentials, a user or a server");
        }
        String verb = argv.positional(0);
        if (verb == null) {
            return Classification.unsupported(argv.unknownFlag() == null ? "no kubectl verb"
                    : "unrecognised flag before the verb");
        }
        if (UNBOUNDED_VERBS.contains(verb)) {
            return new Classification(Kind.REJECTED_UNBOUNDED, "kubectl " + verb + " is interactive or unbounded");
        }
        if (AUTH_VERBS.contains(verb)) {
            return new Classification(Kind.REJECTED_AUTH_OR_CONFIG, "kubectl " + verb + " changes configuration or credentials");
        }
        if (mentionsSecrets(argv)) {
            // rejecting on what was read before an unknown flag is safe: a rejection never runs anything
            return new Classification(Kind.REJECTED_AUTH_OR_CONFIG, "reads or writes Secrets or tokens");
        }
        if (argv.unknownFlag() != null) {
            return Classification.unsupported("unrecognised flag " + CliClassifier.shortened(argv.unknownFlag()));
        }
        if (argv.on("--watch") || argv.on("--watch-only")) {
            return new Classification(Kind.REJECTED_UNBOUNDED, "--watch never ends");
        }
        String sub = argv.positional(1);
        switch (verb) {
            case "logs":
                return argv.on("--follow")
                        ? new Classification(Kind.REJECTED_UNBOUNDED, "logs --follow never ends")
                        : Classification.read("kubectl logs");
            case "auth":
                if ("can-i".equals(sub) || "whoami".equals(sub)) {
                    return Classification.read("kubectl auth " + sub);
                }
                if ("reconcile".equals(sub)) {
                    return new Classification(Kind.REJECTED_AUTH_OR_CONFIG, "kubectl auth reconcile changes RBAC");
                }
                return Classification.unsupported("unrecognised kubectl auth subcommand");
            case "cluster-info":
                if (sub == null) {
                    return Classification.read("kubectl cluster-info");
                }
                return "dump".equals(sub)
                        ? new Classification(Kind.REJECTED_UNBOUNDED, "cluster-info dump copies the whole cluster")
                        : Classification.unsupported("unrecognised cluster-info subcommand");
            case "rollout":
                return rollout(argv, sub);
            case "delete":
                if (argv.on("--all") || argv.on("--all-namespaces")) {
                    return new Classification(Kind.REJECTED_UNBOUNDED, "delete across everything");
                }
                return Classification.effect("kubectl delete");
            case "apply":
                if (argv.on("--prune")) {
                    return new Classification(Kind.REJECTED_UNBOUNDED, "apply --prune deletes whatever is not listed");
                }
                return Classification.effect("kubectl apply");
            case "run":
                if (argv.on("--stdin") || argv.on("--tty") || argv.on("--attach")) {
                    return new Classification(Kind.REJECTED_UNBOUNDED, "interactive kubectl run");
                }
                return Classification.effect("kubectl run");
            default:
                break;
        }
        if (READ_VERBS.contains(verb)) {
            return Classification.read("kubectl " + verb);
        }
        if (EFFECT_VERBS.contains(verb)) {
            return Classification.effect("kubectl " + verb);
        }
        return Classification.unsupported("unrecognised kubectl verb");
    }

    private static Classification rollout(Argv argv, String sub) {
        if (sub == null) {
            return Classification.unsupported("kubectl rollout without a subcommand");
        }
        return switch (sub) {
            case "history" -> Classification.read("kubectl rollout history");
            case "status" -> "false".equalsIgnoreCase(argv.flags().get("--watch"))
                    ? Classification.read("kubectl rollout status --watch=false")
                    : new Classification(Kind.REJECTED_UNBOUNDED, "rollout status watches until done; use --watch=false");
            case "restart", "undo", "pause", "resume" -> Classification.effect("kubectl rollout " + sub);
            default -> Classification.unsupported("unrecognised kubectl rollout subcommand");
        };
    }

    /** {@code get secret x}, {@code create secret generic}, {@code create token sa}, {@code --raw .../secrets/...}. */
    private static boolean mentionsSecrets(Argv argv) {
        String verb = argv.positional(0);
        if ("create".equals(verb) && ("secret".equals(argv.positional(1)) || "token".equals(argv.positional(1)))) {
            return true;
        }
        String raw = argv.flags().get("--raw");
        if (raw != null && raw.toLowerCase(Locale.ROOT).contains("/secrets")) {
            return true;
        }
        if (!READ_VERBS.contains(verb) && !EFFECT_VERBS.contains(verb)) {
            return false;
        }
        for (String resource : argv.positionals().subList(1, argv.positionals().size())) {
            for (String part : resource.toLowerCase(Locale.ROOT).split(",")) {
                String type = part.contains("/") ? part.substring(0, part.indexOf('/')) : part;
                if (type.equals("secret") || type.equals("secrets") || type.startsWith("secrets.")
                        || type.startsWith("secret.")) {
                    return true;
                }
            }
        }
        return false;
    }
}
