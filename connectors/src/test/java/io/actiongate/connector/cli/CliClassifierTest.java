package io.actiongate.connector.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.actiongate.connector.internal.Json;
import io.actiongate.connector.spi.Classification.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class CliClassifierTest {

    private final CliClassifier connector = new CliClassifier();

    static String input(String commandLine) {
        ArrayNode argv = Json.MAPPER.createArrayNode();
        for (String arg : commandLine.trim().split("\\s+")) {
            argv.add(arg);
        }
        return Json.MAPPER.createObjectNode().set("argv", argv).toString();
    }

    private Kind classify(String commandLine) {
        String operation = commandLine.trim().split("\\s+")[0];
        return connector.classify(operation, input(commandLine)).kind();
    }

    @Test
    void shouldReadTheGatesParsedInputInsteadOfParsingTheTextAgain() throws Exception {
        // the text is no JSON at all: only a classifier that reads the tree it is handed can answer READ
        var tree = Json.MAPPER.readTree(input("kubectl get pods"));
        assertThat(connector.classify("kubectl", "not json", tree).kind()).isEqualTo(Kind.READ);
        assertThat(connector.validate("kubectl", "not json", tree).valid()).isTrue();
        assertThat(connector.classify("kubectl", "not json", null).kind()).as("no tree: the text is parsed")
                .isEqualTo(Kind.UNSUPPORTED);
        assertThat(connector.classify("kubectl", input("kubectl get pods"),
                Json.MAPPER.readTree("[\"kubectl\"]")).kind()).as("a tree that is no object fails closed")
                .isEqualTo(Kind.UNSUPPORTED);
    }

    @ParameterizedTest(name = "{1} -> {0}")
    @CsvSource(delimiter = '|', value = {
            // reads
            "READ | kubectl get pods",
            "READ | kubectl get pods -n x",
            "READ | kubectl -n prod get pods",
            "READ | kubectl --namespace=prod get pods -o wide",
            "READ | kubectl --context staging get deploy/web -o yaml",
            "READ | kubectl -nprod get pods",
            "READ | kubectl get pods -l app=web --show-labels",
            "READ | kubectl get pods -A",
            "READ | kubectl get pods --all-namespaces",
            "READ | kubectl get pods --watch=false",
            "READ | kubectl describe pod web-1",
            "READ | kubectl logs web-1",
            "READ | kubectl logs web-1 -c app --tail 100",
            "READ | kubectl logs -p web-1",
            "READ | kubectl logs web-1 --since=1h --timestamps",
            "READ | kubectl -n prod logs deploy/web --follow=false",
            "READ | kubectl top pods",
            "READ | kubectl top node",
            "READ | kubectl explain deployment.spec",
            "READ | kubectl api-resources",
            "READ | kubectl api-versions",
            "READ | kubectl version",
            "READ | kubectl auth can-i delete pods",
            "READ | kubectl auth whoami",
            "READ | kubectl cluster-info",
            "READ | kubectl rollout history deploy/web",
            "READ | kubectl rollout status deploy/web --watch=false",
            "READ | kubectl events -n prod",
            "READ | kubectl diff -f manifest.yaml",
            "READ | kubectl wait --for=condition=Ready pod/web-1 --timeout=30s",
            "READ | kubectl get --raw /healthz",
            "READ | kubectl get pod secret-rotator-1",
            // effects
            "EFFECT | kubectl apply -f deploy.yaml",
            "EFFECT | kubectl -n prod apply -f deploy.yaml",
            "EFFECT | kubectl create deployment web --image=nginx",
            "EFFECT | kubectl create namespace staging",
            "EFFECT | kubectl delete pod web-1",
            "EFFECT | kubectl --context x delete pod y",
            "EFFECT | kubectl delete pods -l app=web",
            "EFFECT | kubectl delete pod web-1 --all=false",
            "EFFECT | kubectl patch deploy web -p {\"spec\":{}}",
            "EFFECT | kubectl patch deploy web --type merge --patch-file p.json",
            "EFFECT | kubectl scale deploy/web --replicas=3",
            "EFFECT | kubectl rollout restart deploy/web",
            "EFFECT | kubectl rollout undo deploy/web --to-revision=2",
            "EFFECT | kubectl annotate pod web-1 team=a --overwrite",
            "EFFECT | kubectl label node n1 disk=ssd",
            "EFFECT | kubectl cordon n1",
            "EFFECT | kubectl uncordon n1",
            "EFFECT | kubectl drain n1 --ignore-daemonsets --delete-emptydir-data",
            "EFFECT | kubectl taint nodes n1 key=value:NoSchedule",
            "EFFECT | kubectl set image deploy/web app=nginx:1.27",
            "EFFECT | kubectl replace -f deploy.yaml",
            "EFFECT | kubectl autoscale deploy web --min=2 --max=5",
            "EFFECT | kubectl expose deploy web --port=80",
            "EFFECT | kubectl run probe --image=busybox --restart=Never",
            "EFFECT | kubectl apply -f deploy.yaml --dry-run=server",
            // auth and configuration
            "REJECTED_AUTH_OR_CONFIG | kubectl config view",
            "REJECTED_AUTH_OR_CONFIG | kubectl config use-context prod",
            "REJECTED_AUTH_OR_CONFIG | kubectl get pods --token abc",
            "REJECTED_AUTH_OR_CONFIG | kubectl --token=abc get pods",
            "REJECTED_AUTH_OR_CONFIG | kubectl --kubeconfig /tmp/k get pods",
            "REJECTED_AUTH_OR_CONFIG | kubectl get pods --as system:admin",
            "REJECTED_AUTH_OR_CONFIG | kubectl --as-group=system:masters delete pod x",
            "REJECTED_AUTH_OR_CONFIG | kubectl -s https://other:6443 get pods",
            "REJECTED_AUTH_OR_CONFIG | kubectl --user admin get pods",
            "REJECTED_AUTH_OR_CONFIG | kubectl get pods --insecure-skip-tls-verify",
            "REJECTED_AUTH_OR_CONFIG | kubectl create secret generic db --from-literal=x=y",
            "REJECTED_AUTH_OR_CONFIG | kubectl create token builder",
            "REJECTED_AUTH_OR_CONFIG | kubectl get secret db -o yaml",
            "REJECTED_AUTH_OR_CONFIG | kubectl get secrets",
            "REJECTED_AUTH_OR_CONFIG | kubectl describe secret/db",
            "REJECTED_AUTH_OR_CONFIG | kubectl get pods,secrets",
            "REJECTED_AUTH_OR_CONFIG | kubectl delete secret db",
            "REJECTED_AUTH_OR_CONFIG | kubectl get --raw /api/v1/namespaces/x/secrets/db",
            "REJECTED_AUTH_OR_CONFIG | kubectl certificate approve csr-1",
            "REJECTED_AUTH_OR_CONFIG | kubectl auth reconcile -f rbac.yaml",
            // unbounded
            "REJECTED_UNBOUNDED | kubectl get pods --watch",
            "REJECTED_UNBOUNDED | kubectl get pods -w",
            "REJECTED_UNBOUNDED | kubectl -n prod get pods -w",
            "REJECTED_UNBOUNDED | kubectl get pods --watch-only",
            "REJECTED_UNBOUNDED | kubectl events --watch",
            "REJECTED_UNBOUNDED | kubectl logs -f web-1",
            "REJECTED_UNBOUNDED | kubectl logs web-1 --follow",
            "REJECTED_UNBOUNDED | kubectl -n prod logs deploy/web -f",
            "REJECTED_UNBOUNDED | kubectl logs -pf web-1",
            "REJECTED_UNBOUNDED | kubectl delete pods --all",
            "REJECTED_UNBOUNDED | kubectl delete pods --all-namespaces -l app=x",
            "REJECTED_UNBOUNDED | kubectl delete pods -A -l app=x",
            "REJECTED_UNBOUNDED | kubectl -n prod delete deploy --all",
            "REJECTED_UNBOUNDED | kubectl apply -f dir/ --prune -l app=web",
            "REJECTED_UNBOUNDED | kubectl proxy",
            "REJECTED_UNBOUNDED | kubectl port-forward svc/web 8080:80",
            "REJECTED_UNBOUNDED | kubectl exec -it web-1 -- sh",
            "REJECTED_UNBOUNDED | kubectl -n prod exec web-1 -- cat /etc/passwd",
            "REJECTED_UNBOUNDED | kubectl attach web-1",
            "REJECTED_UNBOUNDED | kubectl cp web-1:/data ./data",
            "REJECTED_UNBOUNDED | kubectl edit deploy web",
            "REJECTED_UNBOUNDED | kubectl debug node/n1 -it --image=busybox",
            "REJECTED_UNBOUNDED | kubectl rollout status deploy/web",
            "REJECTED_UNBOUNDED | kubectl run shell -it --image=busybox",
            "REJECTED_UNBOUNDED | kubectl cluster-info dump",
            // unsupported (never READ)
            "UNSUPPORTED | kubectl",
            "UNSUPPORTED | kubectl -n prod",
            "UNSUPPORTED | kubectl frobnicate pods",
            "UNSUPPORTED | kubectl plugin list",
            "UNSUPPORTED | kubectl kustomize .",
            "UNSUPPORTED | kubectl get pods --no-such-flag",
            "UNSUPPORTED | kubectl --no-such-flag get pods",
            "UNSUPPORTED | kubectl -o yaml get pods",
            "UNSUPPORTED | kubectl get pods -z",
            "UNSUPPORTED | kubectl rollout",
            "UNSUPPORTED | kubectl rollout frobnicate deploy/web",
            "UNSUPPORTED | kubectl auth",
            "UNSUPPORTED | kubectl get pods -n",
            "UNSUPPORTED | kubectl alpha events",
    })
    void shouldClassifyKubectl(Kind expected, String commandLine) {
        assertThat(classify(commandLine)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{1} -> {0}")
    @CsvSource(delimiter = '|', value = {
            // reads
            "READ | gh pr view 12",
            "READ | gh -R owner/repo pr view 1",
            "READ | gh --repo=owner/repo pr list --state open -L 20",
            "READ | gh pr view 1 -R owner/repo --json title,state -q .title",
            "READ | gh pr view 1 --comments",
            "READ | gh pr diff 12 --name-only",
            "READ | gh pr checks 12",
            "READ | gh pr checks 12 --watch=false",
            "READ | gh pr status",
            "READ | gh issue view 3",
            "READ | gh issue list -l bug -a @me --limit 5",
            "READ | gh issue status",
            "READ | gh repo view owner/repo",
            "READ | gh repo list owner --limit 50",
            "READ | gh run view 123 --log",
            "READ | gh run view 123 -j 456",
            "READ | gh run list -w ci.yml -b main",
            "READ | gh release view v1.0",
            "READ | gh release list",
            "READ | gh workflow list",
            "READ | gh workflow view ci.yml",
            "READ | gh label list",
            "READ | gh search prs --author=me",
            "READ | gh search code foo --language=go",
            "READ | gh status",
            "READ | gh api repos/owner/repo/pulls",
            "READ | gh api -X GET search/issues -f q=repo:o/r",
            "READ | gh api --method HEAD repos/o/r",
            "READ | gh api repos/o/r/issues --paginate -q .[].title",
            "READ | gh cache list",
            // effects
            "EFFECT | gh pr create -t title -b body",
            "EFFECT | gh pr create --fill --draft -B main",
            "EFFECT | gh -R owner/repo pr merge 1 --squash --delete-branch",
            "EFFECT | gh pr merge 1 -s -d",
            "EFFECT | gh pr merge 1 -m",
            "EFFECT | gh pr close 1 --comment done",
            "EFFECT | gh pr comment 1 -b lgtm",
            "EFFECT | gh pr review 1 --approve",
            "EFFECT | gh pr edit 1 --add-label bug",
            "EFFECT | gh pr ready 1",
            "EFFECT | gh issue create -t bug -b details -l bug",
            "EFFECT | gh issue close 3 --reason completed",
            "EFFECT | gh issue comment 3 --body thanks",
            "EFFECT | gh issue delete 3 --yes",
            "EFFECT | gh release create v1.0 --generate-notes",
            "EFFECT | gh release create v1.0 -p -d -n notes",
            "EFFECT | gh release delete v1.0 -y",
            "EFFECT | gh repo create owner/new --private",
            "EFFECT | gh repo delete owner/old --yes",
            "EFFECT | gh repo fork owner/repo",
            "EFFECT | gh run rerun 123 --failed",
            "EFFECT | gh run cancel 123",
            "EFFECT | gh workflow run ci.yml -f env=prod -r main",
            "EFFECT | gh workflow disable ci.yml",
            "EFFECT | gh label create bug",
            "EFFECT | gh api repos/o/r/issues -f title=x",
            "EFFECT | gh api -X DELETE repos/o/r",
            "EFFECT | gh api --method=PATCH repos/o/r -F private=true",
            "EFFECT | gh api repos/o/r/dispatches --input body.json",
            "EFFECT | gh api graphql -f query=x",
            // auth and configuration
            "REJECTED_AUTH_OR_CONFIG | gh auth login",
            "REJECTED_AUTH_OR_CONFIG | gh auth token",
            "REJECTED_AUTH_OR_CONFIG | gh auth status",
            "REJECTED_AUTH_OR_CONFIG | gh -R o/r auth status",
            "REJECTED_AUTH_OR_CONFIG | gh config set editor vim",
            "REJECTED_AUTH_OR_CONFIG | gh config get git_protocol",
            "REJECTED_AUTH_OR_CONFIG | gh secret set TOKEN -b x",
            "REJECTED_AUTH_OR_CONFIG | gh secret list",
            "REJECTED_AUTH_OR_CONFIG | gh variable set X -b y",
            "REJECTED_AUTH_OR_CONFIG | gh ssh-key add key.pub",
            "REJECTED_AUTH_OR_CONFIG | gh gpg-key list",
            "REJECTED_AUTH_OR_CONFIG | gh alias set co pr checkout",
            "REJECTED_AUTH_OR_CONFIG | gh extension install owner/gh-ext",
            "REJECTED_AUTH_OR_CONFIG | gh repo deploy-key add key.pub",
            "REJECTED_AUTH_OR_CONFIG | gh repo set-default owner/repo",
            "REJECTED_AUTH_OR_CONFIG | gh api --hostname ghe.example.com user",
            // unbounded
            "REJECTED_UNBOUNDED | gh run watch 123",
            "REJECTED_UNBOUNDED | gh -R o/r run watch",
            "REJECTED_UNBOUNDED | gh pr checks 12 --watch",
            "REJECTED_UNBOUNDED | gh pr checks 12 --watch -i 5",
            // unsupported (never READ)
            "UNSUPPORTED | gh",
            "UNSUPPORTED | gh -R owner/repo",
            "UNSUPPORTED | gh pr",
            "UNSUPPORTED | gh pr frobnicate 1",
            "UNSUPPORTED | gh browse",
            "UNSUPPORTED | gh codespace ssh",
            "UNSUPPORTED | gh copilot suggest",
            "UNSUPPORTED | gh pr view 1 --no-such-flag",
            "UNSUPPORTED | gh --no-such-flag pr view 1",
            "UNSUPPORTED | gh -L 5 pr list",
            "UNSUPPORTED | gh api",
            "UNSUPPORTED | gh pr view -R",
    })
    void shouldClassifyGh(Kind expected, String commandLine) {
        assertThat(classify(commandLine)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{}",
            "{\"argv\":[]}",
            "{\"argv\":\"kubectl get pods\"}",
            "{\"argv\":[\"kubectl\",1]}",
            "{\"argv\":[\"/usr/bin/kubectl\",\"get\",\"pods\"]}",
            "{\"argv\":[\"gh\",\"pr\",\"view\"]}",
            "{\"argv\":[\"kubectl\",\"get\",\"pods\"],\"env\":{\"KUBECONFIG\":\"/x\"}}",
            "{\"argv\":[\"kubectl\",\"get\",\"pods\\u0000\"]}",
            "not json"})
    void shouldTreatMalformedInputAsUnsupportedAndInvalid(String json) {
        assertThat(connector.classify("kubectl", json).kind()).isEqualTo(Kind.UNSUPPORTED);
        assertThat(connector.validate("kubectl", json).valid()).isFalse();
    }

    @Test
    void shouldTreatUnknownOperationAsUnsupported() {
        assertThat(connector.classify("helm", input("helm list")).kind()).isEqualTo(Kind.UNSUPPORTED);
        assertThat(connector.classify("gh", input("kubectl get pods")).kind()).isEqualTo(Kind.UNSUPPORTED);
        assertThat(connector.validate("helm", input("helm list")).valid()).isFalse();
    }

    @Test
    void shouldBoundArgumentCount() {
        assertThat(connector.validate("kubectl", input("kubectl get pods" + " x".repeat(62))).valid()).isFalse();
        assertThat(connector.validate("kubectl", input("kubectl get pods" + " x".repeat(61))).valid()).isTrue();
    }

    @Test
    void shouldClassifyPerInput() {
        assertThat(connector.classifiesPerInput()).isTrue();
    }

    @Test
    void shouldRefuseVectorsAboveTheInputBoundWithoutParsingThem() {
        String huge = "{\"argv\":[\"kubectl\",\"get\",\"" + "p".repeat(CliClassifier.MAX_INPUT_CHARS) + "\"]}";

        assertThat(connector.classify("kubectl", huge).kind()).isEqualTo(Kind.UNSUPPORTED);
        assertThat(connector.validate("kubectl", huge).valid()).isFalse();
    }
}
