package io.actiongate.connector.cli;

import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.Classification.Kind;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Classifies a {@code gh} argument vector (without {@code argv[0]}). Unknown commands and flags are UNSUPPORTED. */
final class GhClassifier {

    /** Before the command group only the repository selector is accepted. */
    static final FlagTable BEFORE_GROUP = FlagTable.of("-R|--repo=", "-h|--help", "--hostname=");

    static final FlagTable COMMON = BEFORE_GROUP.with(FlagTable.of(
            "-q|--jq=", "-t|--title=", "--template=", "--json=", "-w|--web", "-L|--limit=", "-s|--state=",
            "-a|--assignee=", "-A|--author=", "-l|--label=", "-S|--search=", "-B|--base=", "-H|--head=",
            "-m|--milestone=", "--app=", "--mention=", "-c|--comments", "--color=", "--name-only", "--patch",
            "-b|--body=", "-F|--body-file=", "-T|--template=", "-d|--draft", "-f|--fill", "--fill-first",
            "--fill-verbose", "-r|--reviewer=", "-p|--project=", "--no-maintainer-edit", "--dry-run",
            "--add-label=", "--remove-label=", "--add-assignee=", "--remove-assignee=", "--add-reviewer=",
            "--remove-reviewer=", "--add-project=", "--remove-project=", "--reason=", "-e|--editor", "--approve",
            "--request-changes", "--comment", "--edit-last", "--visibility=", "--source=", "--description=",
            "-y|--yes", "--confirm", "--clone", "--public", "--private", "--internal", "--topic=", "--archived",
            "--fork", "--no-archived", "--language=", "-n|--notes=", "--notes-file=", "--target=", "--latest",
            "--generate-notes", "--verify-tag", "--discussion-category=", "--exit-status", "-j|--job=", "--log",
            "--log-failed", "-v|--verbose", "-u|--user=", "--workflow=", "--branch=", "--event=", "--commit=",
            "--created=", "--status=", "--attempt=", "-i|--interval=", "--watch", "--required", "--fail-fast",
            "--order=", "--sort=", "--owner=", "--include-prs", "--match=", "--type=", "--ref=", "--all",
            "--failed", "--debug", "--exclude-drafts", "--exclude-pre-releases", "--homepage=",
            "--enable-issues", "--enable-wiki", "--default-branch=", "--color", "--force", "--squash",
            "--rebase", "--merge", "--auto", "--admin", "--delete-branch", "--disable-auto",
            "--match-head-commit=", "--subject=", "--prerelease", "--draft", "--assignee=", "--milestone=",
            "--body-file=", "--head=", "--base=", "--recover=", "--filename=", "--desc=", "--duplicate-of="));

    static final Map<String, FlagTable> OVERRIDES = Map.of(
            "pr merge", COMMON.with(FlagTable.of("-m|--merge", "-s|--squash", "-r|--rebase", "-d|--delete-branch")),
            "release create", COMMON.with(FlagTable.of("-p|--prerelease")),
            "release edit", COMMON.with(FlagTable.of("-p|--prerelease")),
            "run list", COMMON.with(FlagTable.of("-w|--workflow=", "-b|--branch=", "-u|--user=", "-e|--event=",
                    "-c|--commit=")),
            "workflow run", COMMON.with(FlagTable.of("-f|--raw-field=", "-F|--field=", "-r|--ref=", "--json")),
            "api", BEFORE_GROUP.with(FlagTable.of("-X|--method=", "-f|--raw-field=", "-F|--field=", "-H|--header=",
                    "-p|--preview=", "-i|--include", "--input=", "--paginate", "-q|--jq=", "-t|--template=",
                    "--cache=", "--silent", "--slurp", "--verbose")));

    /** Credentials, configuration, secrets, installing code. */
    static final Set<String> AUTH_GROUPS = Set.of("auth", "config", "secret", "variable", "ssh-key", "gpg-key",
            "alias", "extension");
    static final Set<String> AUTH_FLAGS = Set.of("--hostname");

    static final Map<String, Set<String>> READS = Map.of(
            "pr", Set.of("view", "list", "diff", "checks", "status"),
            "issue", Set.of("view", "list", "status"),
            "repo", Set.of("view", "list"),
            "run", Set.of("view", "list"),
            "release", Set.of("view", "list"),
            "workflow", Set.of("view", "list"),
            "label", Set.of("list"),
            "search", Set.of("repos", "issues", "prs", "code", "commits"),
            "gist", Set.of("view", "list"),
            "cache", Set.of("list"));

    static final Map<String, Set<String>> EFFECTS = Map.of(
            "pr", Set.of("create", "merge", "close", "reopen", "comment", "review", "edit", "ready", "lock",
                    "unlock", "update-branch", "checkout", "revert"),
            "issue", Set.of("create", "close", "reopen", "comment", "edit", "delete", "transfer", "pin", "unpin",
                    "lock", "unlock", "develop"),
            "release", Set.of("create", "delete", "edit", "upload", "download", "delete-asset"),
            "repo", Set.of("create", "delete", "fork", "edit", "archive", "unarchive", "rename", "clone", "sync"),
            "run", Set.of("rerun", "cancel", "delete", "download"),
            "workflow", Set.of("run", "enable", "disable"),
            "label", Set.of("create", "edit", "delete", "clone"),
            "gist", Set.of("create", "edit", "delete", "clone"),
            "cache", Set.of("delete"));

    private GhClassifier() {
    }

    static FlagTable tableFor(List<String> positionals) {
        if (positionals.isEmpty()) {
            return BEFORE_GROUP;
        }
        if (positionals.get(0).equals("api")) {
            return OVERRIDES.get("api");
        }
        if (positionals.size() < 2) {
            return COMMON;
        }
        return OVERRIDES.getOrDefault(positionals.get(0) + " " + positionals.get(1), COMMON);
    }

    static Classification classify(List<String> args) {
        Argv argv = Argv.parse(args, GhClassifier::tableFor);
        String group = argv.positional(0);
        if (CliClassifier.usesFlag(args, AUTH_FLAGS) || argv.has("--hostname")) {
            return new Classification(Kind.REJECTED_AUTH_OR_CONFIG, "targets another GitHub host");
        }
        if (group == null) {
            return Classification.unsupported(argv.unknownFlag() == null ? "no gh command"
                    : "unrecognised flag before the command");
        }
        if (AUTH_GROUPS.contains(group)) {
            return new Classification(Kind.REJECTED_AUTH_OR_CONFIG, "gh " + group + " touches credentials or configuration");
        }
        String sub = argv.positional(1);
        if ("repo".equals(group) && ("deploy-key".equals(sub) || "set-default".equals(sub))) {
            return new Classification(Kind.REJECTED_AUTH_OR_CONFIG, "gh repo " + sub + " touches keys or configuration");
        }
        if ("run".equals(group) && "watch".equals(sub)) {
            return new Classification(Kind.REJECTED_UNBOUNDED, "gh run watch never ends on its own");
        }
        if (argv.unknownFlag() != null) {
            return Classification.unsupported("unrecognised flag " + CliClassifier.shortened(argv.unknownFlag()));
        }
        if (argv.on("--watch")) {
            return new Classification(Kind.REJECTED_UNBOUNDED, "--watch never ends on its own");
        }
        if ("api".equals(group)) {
            return api(argv);
        }
        if ("status".equals(group) && sub == null) {
            return Classification.read("gh status");
        }
        if (sub == null) {
            return Classification.unsupported("gh " + group + " without a subcommand");
        }
        if (READS.getOrDefault(group, Set.of()).contains(sub)) {
            return Classification.read("gh " + group + " " + sub);
        }
        if (EFFECTS.getOrDefault(group, Set.of()).contains(sub)) {
            return Classification.effect("gh " + group + " " + sub);
        }
        return Classification.unsupported("unrecognised gh command");
    }

    /** {@code gh api}: GET (explicit, or implied by the absence of fields) is a read; anything else an effect. */
    private static Classification api(Argv argv) {
        String endpoint = argv.positional(1);
        if (endpoint == null) {
            return Classification.unsupported("gh api without an endpoint");
        }
        if (endpoint.equals("graphql")) {
            return Classification.effect("gh api graphql may carry a mutation");
        }
        boolean hasFields = argv.has("--raw-field") || argv.has("--field") || argv.has("--input");
        String method = argv.flags().getOrDefault("--method", hasFields ? "POST" : "GET").toUpperCase(Locale.ROOT);
        if (method.equals("GET") || method.equals("HEAD")) {
            return Classification.read("gh api " + method);
        }
        return Classification.effect("gh api " + CliClassifier.shortened(method));
    }
}
