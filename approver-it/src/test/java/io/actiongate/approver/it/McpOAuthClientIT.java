package io.actiongate.approver.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

import io.actiongate.dev.DevComponent;
import io.actiongate.dev.DevComponents;
import io.actiongate.dev.DevEnvironment;
import io.actiongate.dev.DevStack;

/**
 * A hosted MCP client end to end: {@code ./actiongate dev} as it runs, and the official TypeScript MCP SDK's client configured the
 * way a hosted client is, with only the gateway's URL and OAuth ({@code OAuthClientProvider}). The client discovers the
 * authorization server from the gateway's 401, registers, and gets a token from dev's identity provider (a person
 * signs in in headless Chromium); it reads directly, calls a write that needs approval, is asked to open the review
 * page (URL elicitation), a person approves there with a passkey, and the same call returns {@code SUCCEEDED} with one
 * effect on the upstream MCP server. System tier: a browser, Node.js and packages from the npm registry
 * ({@code @modelcontextprotocol/sdk}, installed under target/ at test time); skipped, saying why, without them.
 */
@Tag("system")
class McpOAuthClientIT {

    static final String SDK = "@modelcontextprotocol/sdk@1.32.2";
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;

    private static DevEnvironment env;
    private static DevStack stack;
    private static Path client;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(Browser.available(), Browser.missingMessage());
        Assumptions.assumeTrue(onPath("node") && onPath("npm"), "the MCP client test needs Node.js 18+ and npm "
                + "(Debian: apt-get install -y nodejs npm)");
        client = installClient();
        List<DevComponent> components = DevComponents.defaults();
        stack = (DevStack) components.get(0);
        // a person takes a while to sign in, step up and approve: the call waits for them up to three minutes
        env = DevEnvironment.start(new DevEnvironment.Settings(0, work.resolve("data"), Map.of("http.port", "0",
                "mcp.gateway.approval.wait.ms", "180000")), components);
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    private static boolean onPath(String command) {
        try {
            return new ProcessBuilder(command, "--version").redirectErrorStream(true).start()
                    .waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** npm installs the SDK under target/ once; the client script is copied beside it. */
    private static Path installClient() throws Exception {
        Path dir = Files.createDirectories(Path.of("target", "mcp-ts-client")).toAbsolutePath();
        Path installed = dir.resolve("node_modules/@modelcontextprotocol/sdk/package.json");
        String version = SDK.substring(SDK.lastIndexOf('@') + 1);
        if (!Files.exists(installed) || !JSON.readTree(installed.toFile()).path("version").asText().equals(version)) {
            Files.writeString(dir.resolve("package.json"), "{\"name\":\"mcp-ts-client\",\"private\":true,"
                    + "\"type\":\"module\"}");
            Process npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
                    "--save-exact", SDK).directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            Assumptions.assumeTrue(npm.waitFor(5, TimeUnit.MINUTES) && npm.exitValue() == 0,
                    "npm could not install " + SDK + " from the npm registry: " + output);
        }
        try (InputStream script = McpOAuthClientIT.class.getResourceAsStream("/mcp-oauth-client.mjs")) {
            Files.copy(script, dir.resolve("mcp-oauth-client.mjs"), StandardCopyOption.REPLACE_EXISTING);
        }
        return dir;
    }

    /** The client's event lines ({@code EVENT json}), read as they come. */
    private static final class Events {
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final List<String> seen = new ArrayList<>();

        Events(InputStream out) {
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(out, StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    lines.add("ERROR {\"message\":\"" + e.getClass().getSimpleName() + "\"}");
                }
                lines.add("EXIT null");
            }, "mcp-ts-client-output");
            reader.setDaemon(true);
            reader.start();
        }

        /** The data of the next {@code event}; fails on the client's ERROR or exit, and after the wait. */
        JsonNode next(String event, Duration wait) throws Exception {
            long deadline = System.nanoTime() + wait.toNanos();
            while (true) {
                String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new AssertionError("no " + event + " from the MCP client within " + wait + "; it said: "
                            + seen);
                }
                seen.add(line);
                int space = line.indexOf(' ');
                String name = space < 0 ? line : line.substring(0, space);
                if (name.equals(event)) {
                    return JSON.readTree(line.substring(space + 1));
                }
                if (name.equals("ERROR") || name.equals("EXIT")) {
                    throw new AssertionError("the MCP client stopped before " + event + ": " + seen);
                }
            }
        }
    }

    @Test
    void shouldServeAHostedClientGivenOnlyTheUrlFromSignInToTheApprovedEffect() throws Exception {
        String hints = String.join("\n", env.hints()) + "\n";
        Matcher oauth = Pattern.compile("MCP clients with OAuth: give them only (http://\\S+)").matcher(hints);
        assertThat(oauth.find()).as("the OAuth hint in:%n%s", hints).isTrue();
        String mcpUrl = oauth.group(1);
        Matcher page = Pattern.compile("approval page: (http://localhost:\\d+)/queue").matcher(hints);
        assertThat(page.find()).isTrue();
        String approval = page.group(1);
        int appliedBefore = stack.sandboxes().mcp().applied();

        Process node = new ProcessBuilder("node", "--dns-result-order=ipv4first", "mcp-oauth-client.mjs", mcpUrl)
                .directory(client.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (Browser browser = new Browser()) {
            Events events = new Events(node.getInputStream());

            // the 401 named the authorization server; the client registered and sends its person to sign in
            assertThat(events.next("REGISTERED", WAIT).path("client_id").asText()).startsWith("dev-mcp-");
            String authorize = events.next("AUTHORIZE", WAIT).path("url").asText();
            assertThat(authorize).contains("resource=" + java.net.URLEncoder.encode(mcpUrl, StandardCharsets.UTF_8),
                    "code_challenge_method=S256");
            browser.driver.get(authorize);
            signInAtTheProvider(browser, "dana@demo");
            events.next("AUTHORIZED", WAIT);
            assertThat(events.next("CONNECTED", WAIT).path("protocol").asText()).isEqualTo("2025-11-25");
            JsonNode tools = events.next("TOOLS", WAIT);
            assertThat(tools.findValuesAsText("name")).contains("notes_lookup", "notes_post");

            JsonNode read = events.next("READ", WAIT);
            assertThat(read.path("_meta").path("actiongate/data").asBoolean()).as("%s", read).isTrue();
            assertThat(read.path("isError").asBoolean(false)).isFalse();

            // the write needs a person: the client is asked to open the approval service's own review page
            JsonNode elicit = events.next("ELICIT", WAIT);
            assertThat(elicit.path("mode").asText()).isEqualTo("url");
            String review = elicit.path("url").asText();
            assertThat(review).startsWith(approval + "/review/mcp-demo/mcp-");
            assertThat(elicit.path("message").asText()).contains("notes_post").doesNotContain("http");

            // the person: signs in to the approval service, adds a passkey, approves this exact call
            browser.driver.get(approval + "/stepup");
            signInAtTheProvider(browser, "alice@demo");
            await(browser, "the step-up page", d -> !d.findElements(By.id("register-passkey")).isEmpty());
            click(browser, "register-passkey");
            await(browser, "the passkey registered", d -> !d.findElements(By.id("notice")).isEmpty()
                    && d.findElement(By.id("notice")).getText().equals("Passkey registered."));
            // the review page, reloaded until the service has read the proposal and its receipt
            await(browser, "the review of " + review, d -> {
                d.get(review);
                return !d.findElements(By.id("approve")).isEmpty();
            });
            assertThat(browser.driver.findElement(By.id("body")).getText()).contains("Launch moved to Friday.");
            click(browser, "approve");
            await(browser, "the decision published", d -> !d.findElements(By.tagName("h1")).isEmpty()
                    && d.findElement(By.tagName("h1")).getText().equals("Decision published"));

            JsonNode complete = events.next("COMPLETE", Duration.ofMinutes(3));
            assertThat(complete.path("elicitationId").asText()).isEqualTo(elicit.path("elicitationId").asText());
            JsonNode result = events.next("RESULT", Duration.ofMinutes(3));
            JsonNode state = result.path("structuredContent");
            assertThat(state.path("state").asText()).as("%s", result).isEqualTo("SUCCEEDED");
            assertThat(state.path("attempts").asInt()).isEqualTo(1);
            assertThat(state.path("provider_receipt_id").asText()).isNotBlank();
            assertThat(review).endsWith("/review/" + state.path("action_key").asText());
            JsonNode again = events.next("AGAIN", WAIT).path("structuredContent");
            assertThat(again.path("state").asText()).isEqualTo("SUCCEEDED");
            assertThat(again.path("action_key").asText()).isEqualTo(state.path("action_key").asText());
            events.next("EXIT", WAIT);
        } finally {
            node.destroy();
            node.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(node.exitValue()).isZero();
        assertThat(stack.sandboxes().mcp().applied()).as("one effect upstream").isEqualTo(appliedBefore + 1);
        assertThat(stack.sandboxes().mcp().lastAuthorization()).as("the access token never reached the upstream")
                .doesNotContain("eyJ");
    }

    /** The identity provider's login form (dev's: any username; the provider adds the org). */
    private static void signInAtTheProvider(Browser browser, String username) {
        browser.waitUpTo(WAIT).until(d -> !d.findElements(By.name("username")).isEmpty());
        browser.driver.findElement(By.name("username")).sendKeys(username);
        browser.driver.findElement(By.cssSelector("input[type=submit]")).click();
        browser.waitUpTo(WAIT).until(d -> d.findElements(By.name("username")).isEmpty());
    }

    /** Waits for {@code condition}; a timeout names what was awaited and shows the page as it is. */
    private static void await(Browser browser, String what,
            java.util.function.Function<org.openqa.selenium.WebDriver, Boolean> condition) {
        try {
            browser.waitUpTo(WAIT).pollingEvery(Duration.ofSeconds(1)).until(condition::apply);
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError("no " + what + " on " + browser.driver.getCurrentUrl() + ": "
                    + browser.driver.findElement(By.tagName("body")).getText(), e);
        }
    }

    /** Clicks once the page (and its deferred script) has loaded, as a person would. */
    private static void click(Browser browser, String id) {
        browser.waitUpTo(WAIT).until(d -> "complete".equals(
                ((org.openqa.selenium.JavascriptExecutor) d).executeScript("return document.readyState")));
        browser.driver.findElement(By.id(id)).click();
    }
}
