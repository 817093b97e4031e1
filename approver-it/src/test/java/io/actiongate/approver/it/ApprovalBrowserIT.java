package io.actiongate.approver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;

import com.sun.net.httpserver.HttpServer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WindowType;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.approver.ApproverService;
import io.actiongate.approver.Fixtures;
import io.actiongate.approver.TestIdp;
import io.actiongate.approver.web.MutableClock;
import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.KeyRecords;
import io.actiongate.testing.TestNames;
import io.actiongate.dev.DemoPolicy;
import io.actiongate.dev.DevStack;
import io.actiongate.dev.Sandboxes;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.key.ActionKey;
import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.serde.AvroSerdes;
import io.actiongate.serde.AvroSetup;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * The approval service end to end in a real browser: an embedded broker, the gate with executor and reconciler
 * sending through a sandbox SMTP server, a real OIDC provider in-process with its login form, headless Chromium
 * with a WebAuthn virtual authenticator. Approving sends the exact email once; cancelling ends DENIED; every tampered,
 * replayed, foreign, expired, other-org or altered case publishes nothing.
 */
@Tag("system")
class ApprovalBrowserIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final String KEY_ID = "approver-it";
    private static final String TASK = "T-1";
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    static Path work;

    private static String prefix;
    private static TestIdp idp;
    private static Sandboxes sandboxes;
    private static ActiongateNode node;
    private static Path signingKey;
    private static PublicKey verifyKey;
    private static KafkaProducer<String, byte[]> producer;

    private ApproverService approver;
    private static int stateTopics;
    private Browser browser;
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @BeforeAll
    static void startGate(TestInfo test) throws Exception {
        AvroSetup.install();
        prefix = TestNames.topicPrefix(test);
        new TopicsCreator(KAFKA.admin(), 60_000).create(TopicsCreator.Plan.of(prefix, 3, (short) 1));
        DevStack.publish(KAFKA.bootstrapServers(), prefix, DemoPolicy.entries());

        Path trusted = Files.createDirectories(work.resolve("trusted"));
        KeyFiles.GeneratedKey key = KeyFiles.generate(Files.createDirectories(work.resolve("approver")), KEY_ID);
        Files.move(key.publicKeyFile(), trusted.resolve(KEY_ID + KeyFiles.PUBLIC_SUFFIX));
        signingKey = key.privateKeyFile();
        verifyKey = key.publicKey();

        Path smtpPassword = work.resolve("smtp-password");
        Files.writeString(smtpPassword, "smtp-secret-it");
        sandboxes = Sandboxes.start("smtp-secret-it", "imap-secret-it");

        Map<String, String> c = new HashMap<>();
        c.put("bootstrap.servers", KAFKA.bootstrapServers());
        c.put("topic.prefix", prefix);
        c.put("application.id", TestNames.applicationId(test));
        c.put("executor.group.id", TestNames.applicationId(test) + "-executor");
        c.put("reconciler.group.id", TestNames.applicationId(test) + "-reconciler");
        c.put("state.dir", Files.createDirectories(work.resolve("state")).toString());
        c.put("http.port", "0");
        c.put("http.bind.address", "127.0.0.1");
        c.put("node.shutdown.timeout.ms", "5000");
        c.put("gate.trusted.keys.dir", trusted.toString());
        c.put("gate.punctuate.interval", "200ms");
        c.put("gate.streams.commit.interval.ms", "100");
        c.put("executor.poll.timeout", "100");
        c.put("reconciler.poll.timeout", "100");
        c.put("connectors.smtp.host", "127.0.0.1");
        c.put("connectors.smtp.port", Integer.toString(sandboxes.smtpPort()));
        c.put("connectors.smtp.from", "actiongate@demo.local");
        c.put("connectors.smtp.username", "actiongate");
        c.put("connectors.smtp.password", "file:" + smtpPassword);
        c.put("connectors.smtp.allowed-domains", Sandboxes.MAIL_DOMAIN);
        node = ActiongateNode.start(c, Role.parse("gate,executor,reconciler"));
        await().atMost(WAIT).until(node::ready);

        idp = new TestIdp(true);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    @AfterAll
    static void stopGate() {
        for (AutoCloseable c : new AutoCloseable[] {producer, idp, node, sandboxes}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // keep closing the rest
            }
        }
    }

    @BeforeEach
    void browser() throws Exception {
        Assumptions.assumeTrue(Browser.available(), Browser.missingMessage());
        browser = new Browser();
    }

    @AfterEach
    void close() throws Exception {
        if (browser != null) {
            browser.close();
        }
        for (AutoCloseable c : closeAfter) {
            c.close();
        }
        if (approver != null) {
            approver.close();
        }
    }

    // ---- the tests ------------------------------------------------------------------------------------------

    @Test
    void shouldApproveTheExactEmailInABrowserAndSendItOnce() throws Exception {
        startApprover(null);
        ActionProposal email = propose("approve-1", Fixtures.email(TASK, "approve-1"));
        Receipt waiting = awaitReceipt("approve-1", r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL);
        int mailsBefore = sandboxes.mailsReceived();

        signIn("alice@demo", "demo", "alice@example.com", "/stepup");
        click("register-passkey");
        awaitText("notice", "Passkey registered.");

        openReview("approve-1");
        WebDriver d = browser.driver;
        assertThat(text("who")).isEqualTo("alice@example.com");
        assertThat(text("recipient")).isEqualTo(Fixtures.TO);
        assertThat(text("subject")).isEqualTo(Fixtures.SUBJECT);
        assertThat(text("body")).isEqualTo(Fixtures.BODY);
        assertThat(text("sender")).isEqualTo("actiongate@demo.local");
        assertThat(text("summary")).isEqualTo(Fixtures.SUMMARY);
        assertThat(text("consequences")).isEqualTo("This will disclose the body above outside the private "
                + "workspace. Sending cannot reliably be recalled.");
        assertThat(text("approve")).isEqualTo("Approve this exact action for one dispatch attempt");
        assertThat(text("cancel")).isEqualTo("Cancel \u2014 do not send");
        assertThat(text("action-digest")).isEqualTo(waiting.getActionDigest());
        screenshot("approver-review.png");

        // the queue as a phone shows it: rows become labelled cards, and everything stays reachable
        org.openqa.selenium.Dimension size = d.manage().window().getSize();
        d.manage().window().setSize(new org.openqa.selenium.Dimension(390, 844));
        d.get(approver.publicUrl() + "/queue");
        assertThat(d.findElement(By.cssSelector("#waiting tbody tr")).getSize().getWidth()).isLessThanOrEqualTo(390);
        assertThat(d.findElement(By.id("filter-tool")).isDisplayed()).isTrue();
        screenshot("approver-queue-phone.png");
        d.manage().window().setSize(size);
        openReview("approve-1");

        // a second tab holds the same review, to be replayed after the decision
        String first = d.getWindowHandle();
        d.switchTo().newWindow(WindowType.TAB);
        openReview("approve-1");
        String second = d.getWindowHandle();
        d.switchTo().window(first);

        click("approve");
        awaitTitle("Decision published");
        assertThat(text("message")).contains("You approved this exact action for one dispatch attempt.");

        Receipt done = awaitReceipt("approve-1", r -> r.getStatus() == ReceiptStatus.SUCCEEDED);
        assertThat(done.getAttempts()).hasSize(1);
        List<Decision> decisions = decisions("approve-1");
        assertThat(decisions).singleElement().satisfies(dec -> {
            assertThat(DecisionSigning.verify(dec, verifyKey)).isTrue();
            assertThat(dec.getType()).isEqualTo(DecisionType.APPROVE);
            assertThat(dec.getActionDigest()).isEqualTo(waiting.getActionDigest());
            assertThat(dec.getApproverSubject()).isEqualTo("alice@demo");
            assertThat(dec.getApproverOrg()).isEqualTo("demo");
            assertThat(dec.getAuthMethod()).isEqualTo("oidc+webauthn");
            assertThat(dec.getKeyId()).isEqualTo(KEY_ID);
            assertThat(Duration.between(dec.getIssuedAt(), dec.getExpiresAt())).isEqualTo(Duration.ofMinutes(10));
        });
        await().atMost(WAIT).until(() -> sandboxes.mailsReceived() == mailsBefore + 1);

        // the second tab replays its form: nothing is published, nothing is sent again. Both tabs of the one session
        // show the action's one open challenge, which the approval used
        d.switchTo().window(second);
        click("cancel");
        awaitTitle("Nothing was published");
        assertThat(text("refusal")).contains("already used");
        settle();
        assertThat(decisions("approve-1")).hasSize(1);
        assertThat(sandboxes.mailsReceived()).isEqualTo(mailsBefore + 1);
        assertThat(latestReceipt("approve-1").getStatus()).isEqualTo(ReceiptStatus.SUCCEEDED);
        assertThat(email.getInputDigest()).isEqualTo(done.getInputDigest());
    }

    @Test
    void shouldCancelAndTheGateDeniesIt() throws Exception {
        startApprover(null);
        propose("cancel-1", Fixtures.email(TASK, "cancel-1"));
        awaitReceipt("cancel-1", r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL);
        int mailsBefore = sandboxes.mailsReceived();

        signIn("alice@demo", "demo", "alice@example.com", "/review/" + TASK + "/cancel-1");
        openReview("cancel-1");
        click("cancel");
        awaitTitle("Decision published");

        awaitReceipt("cancel-1", r -> r.getStatus() == ReceiptStatus.DENIED);
        assertThat(decisions("cancel-1")).singleElement().satisfies(dec -> {
            assertThat(dec.getType()).isEqualTo(DecisionType.REJECT);
            assertThat(DecisionSigning.verify(dec, verifyKey)).isTrue();
        });
        assertThat(sandboxes.mailsReceived()).isEqualTo(mailsBefore);
    }

    @Test
    void shouldPublishNothingForAMissingTokenAForeignOriginOrAnExpiredChallenge() throws Exception {
        MutableClock clock = new MutableClock(Instant.now());
        startApprover(clock);
        propose("refuse-1", Fixtures.email(TASK, "refuse-1"));
        awaitReceipt("refuse-1", r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL);
        signIn("alice@demo", "demo", "alice@example.com", "/review/" + TASK + "/refuse-1");

        // the anti-forgery token removed from the form
        openReview("refuse-1");
        browser.driver.executeScript("document.querySelector('#decide input[name=csrf]').remove();");
        click("cancel");
        awaitTitle("Refused");
        assertThat(text("refusal")).contains("anti-forgery token is missing or wrong");

        // the same form fields posted from a page of another origin (same site, so the session cookie goes along)
        openReview("refuse-1");
        String csrf = browser.driver.findElement(By.cssSelector("#decide input[name=csrf]")).getAttribute("value");
        String challenge = browser.driver.findElement(By.cssSelector("#decide input[name=challenge]"))
                .getAttribute("value");
        String target = approver.publicUrl() + "/review/" + TASK + "/refuse-1";
        String attacker = attackerPage("<form method=\"post\" action=\"" + target + "\">"
                + "<input type=\"hidden\" name=\"csrf\" value=\"" + csrf + "\">"
                + "<input type=\"hidden\" name=\"challenge\" value=\"" + challenge + "\">"
                + "<input type=\"hidden\" name=\"decision\" value=\"REJECT\">"
                + "<button type=\"submit\" id=\"go\">Win a prize</button></form>");
        browser.driver.get(attacker);
        click("go");
        awaitTitle("Refused");
        assertThat(text("refusal")).contains("did not come from this site");

        // a review form left open past its expiry
        openReview("refuse-1");
        clock.advance(Duration.ofMinutes(5).plusSeconds(1));
        click("cancel");
        awaitTitle("Nothing was published");
        assertThat(text("refusal")).contains("This review form expired");

        settle();
        assertThat(decisions("refuse-1")).isEmpty();
        assertThat(latestReceipt("refuse-1").getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
    }

    @Test
    void shouldOfferNothingToASubjectOfAnotherOrg() throws Exception {
        propose("other-org-1", Fixtures.email(TASK, "other-org-1"));
        awaitReceipt("other-org-1", r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL);
        startApprover(null); // ready once it has read the proposal and the receipt

        signIn("mallory@acme", "acme", "mallory@acme.example", "/review/" + TASK + "/other-org-1");

        // nothing at all, not even that the action exists
        assertThat(text("refusals")).contains("has not seen both the proposal");
        assertThat(text("status")).isEqualTo("unknown");
        assertThat(browser.driver.getPageSource()).doesNotContain("send_email").doesNotContain("WAITING_APPROVAL")
                .doesNotContain("OTHER_ORG");
        assertThat(browser.driver.findElements(By.id("approve"))).isEmpty();
        assertThat(browser.driver.findElements(By.id("decide"))).isEmpty();
        assertThat(browser.driver.getPageSource()).doesNotContain("legal review done");
        settle();
        assertThat(decisions("other-org-1")).isEmpty();
    }

    @Test
    void shouldShowAndDecideTheFrozenOriginalAfterTheGateRefusedAConflictingProposal() throws Exception {
        startApprover(null);
        propose("altered-1", Fixtures.email(TASK, "altered-1"));
        Receipt waiting = awaitReceipt("altered-1", r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL);
        int mailsBefore = sandboxes.mailsReceived();
        signIn("alice@demo", "demo", "alice@example.com", "/stepup");
        click("register-passkey");
        awaitText("notice", "Passkey registered.");
        openReview("altered-1");

        propose("altered-1", Fixtures.email(TASK, "altered-1", "demo",
                Fixtures.emailInput("partner@example.com", Fixtures.SUBJECT, "The whole customer list."),
                Fixtures.SUMMARY));
        WebDriver d = browser.driver;
        String first = d.getWindowHandle();
        d.switchTo().newWindow(WindowType.TAB);
        await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
            d.get(approver.publicUrl() + "/review/" + TASK + "/altered-1");
            return d.getPageSource().contains("conflict-refused");
        });
        assertThat(text("conflict-refused")).contains("A conflicting proposal under the same ids was refused");
        assertThat(text("recipient")).isEqualTo(Fixtures.TO);
        assertThat(text("body")).isEqualTo(Fixtures.BODY);
        assertThat(d.getPageSource()).doesNotContain("The whole customer list.");
        assertThat(text("action-digest")).isEqualTo(waiting.getActionDigest());

        // the form opened before the conflict decides the original (the virtual authenticator lives in this tab)
        d.switchTo().window(first);
        click("approve");
        awaitTitle("Decision published");
        awaitReceipt("altered-1", r -> r.getStatus() == ReceiptStatus.SUCCEEDED);
        assertThat(decisions("altered-1")).singleElement().satisfies(dec ->
                assertThat(dec.getActionDigest()).isEqualTo(waiting.getActionDigest()));
        await().atMost(WAIT).until(() -> sandboxes.mailsReceived() == mailsBefore + 1);
    }

    @Test
    void shouldApproveThroughAFreshStepUpAtTheIdentityProvider() throws Exception {
        startApprover(null, Map.of("approver.stepup.mode", "idp", "approver.stepup.acr.values", "urn:acme:mfa",
                "approver.stepup.amr", "otp,hwk"));
        propose("idp-1", Fixtures.email(TASK, "idp-1"));
        Receipt waiting = awaitReceipt("idp-1", r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL);
        int mailsBefore = sandboxes.mailsReceived();
        signIn("alice@demo", "demo", "alice@example.com", "/review/" + TASK + "/idp-1");
        openReview("idp-1");
        assertThat(text("idp-stepup")).contains("sign in again");

        // a step-up whose token lacks the required acr approves nothing
        click("approve");
        idpLogin("alice@demo", "{\"org\":\"demo\",\"amr\":[\"otp\"],\"auth_time\":"
                + Instant.now().getEpochSecond() + "}");
        awaitTitle("Nothing was published");
        assertThat(text("refusal")).contains("not of the required strength");

        openReview("idp-1");
        click("approve");
        idpLogin("alice@demo", "{\"org\":\"demo\",\"acr\":\"urn:acme:mfa\",\"amr\":[\"pwd\",\"otp\"],"
                + "\"auth_time\":" + Instant.now().getEpochSecond() + "}");
        awaitTitle("Decision published");

        awaitReceipt("idp-1", r -> r.getStatus() == ReceiptStatus.SUCCEEDED);
        assertThat(decisions("idp-1")).singleElement().satisfies(dec -> {
            assertThat(dec.getAuthMethod()).isEqualTo("oidc+idp-stepup");
            assertThat(dec.getActionDigest()).isEqualTo(waiting.getActionDigest());
            assertThat(DecisionSigning.verify(dec, verifyKey)).isTrue();
        });
        await().atMost(WAIT).until(() -> sandboxes.mailsReceived() == mailsBefore + 1);
    }

    /** Answers the identity provider's login form (a step-up always shows it: prompt=login). */
    private void idpLogin(String subject, String claims) {
        WebDriver d = browser.driver;
        browser.waitUpTo(WAIT).until(x -> !x.findElements(By.name("username")).isEmpty());
        d.findElement(By.name("username")).sendKeys(subject);
        d.findElement(By.name("claims")).sendKeys(claims);
        d.findElement(By.cssSelector("input[type=submit]")).click();
    }

    // ---- helpers --------------------------------------------------------------------------------------------

    private void startApprover(MutableClock clock) throws Exception {
        startApprover(clock, Map.of());
    }

    private void startApprover(MutableClock clock, Map<String, String> extra) throws Exception {
        Map<String, String> c = new HashMap<>(extra);
        c.put("bootstrap.servers", KAFKA.bootstrapServers());
        c.put("topic.prefix", prefix);
        c.put(ApproverConfig.BIND_ADDRESS, "127.0.0.1");
        c.put(ApproverConfig.PORT, "0");
        c.put(ApproverConfig.PUBLIC_URL, "http://localhost:0");
        c.put(ApproverConfig.OIDC_ISSUER, idp.issuer());
        c.put(ApproverConfig.OIDC_CLIENT_ID, TestIdp.CLIENT_ID);
        c.put(ApproverConfig.SIGNING_KEY_FILE, signingKey.toString());
        c.put(ApproverConfig.SIGNING_KEY_ID, KEY_ID);
        c.put("connectors.smtp.from", "actiongate@demo.local");
        // factors are durable: every test starts with people who have enrolled nothing
        c.put(ApproverConfig.STATE_TOPIC, prefix + "approver-state-" + stateTopics++);
        approver = clock == null ? ApproverService.start(c)
                : ApproverService.start(ApproverConfig.from(c), clock);
        assertThat(approver.awaitReady(WAIT)).isTrue();
    }

    private ActionProposal propose(String call, ActionProposal p) throws Exception {
        producer.send(new ProducerRecord<>(prefix + "proposals", ActionKey.format(TASK, call),
                AvroSerdes.serde(ActionProposal.class).serialize(null, p))).get();
        return p;
    }

    /** Signs in through the IdP's own login form and lands on {@code path}. */
    private void signIn(String subject, String org, String email, String path) {
        WebDriver d = browser.driver;
        d.get(approver.publicUrl() + path);
        browser.waitUpTo(WAIT).until(x -> !x.findElements(By.name("username")).isEmpty());
        d.findElement(By.name("username")).sendKeys(subject);
        d.findElement(By.name("claims")).sendKeys("{\"org\":\"" + org + "\",\"email\":\"" + email + "\"}");
        d.findElement(By.cssSelector("input[type=submit]")).click();
        browser.waitUpTo(WAIT).until(x -> x.getCurrentUrl().startsWith(approver.publicUrl().toString())
                && !x.findElements(By.id("who")).isEmpty());
    }

    /** Opens the review, reloading until the service has seen the proposal and the receipt. */
    private void openReview(String call) {
        WebDriver d = browser.driver;
        await().atMost(WAIT).pollInterval(Duration.ofMillis(300)).until(() -> {
            d.get(approver.publicUrl() + "/review/" + ActionKey.format(TASK, call));
            return !d.getPageSource().contains("has not seen both the proposal");
        });
    }

    /** Clicks once the page (and its deferred script) has fully loaded, as a person would. */
    private void click(String id) {
        browser.waitUpTo(WAIT).until(x -> "complete".equals(
                ((org.openqa.selenium.JavascriptExecutor) x).executeScript("return document.readyState")));
        browser.driver.findElement(By.id(id)).click();
    }

    private String text(String id) {
        return browser.driver.findElement(By.id(id)).getText();
    }

    private void awaitText(String id, String expected) {
        try {
            browser.waitUpTo(Duration.ofSeconds(30)).until(x -> !x.findElements(By.id(id)).isEmpty()
                    && x.findElement(By.id(id)).getText().equals(expected));
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError("no #" + id + " '" + expected + "' on " + browser.driver.getCurrentUrl() + ": "
                    + browser.driver.findElement(By.tagName("main")).getText(), e);
        }
    }

    private void awaitTitle(String heading) {
        try {
            browser.waitUpTo(Duration.ofSeconds(30)).until(x -> !x.findElements(By.tagName("h1"))
                    .isEmpty() && x.findElement(By.tagName("h1")).getText().equals(heading));
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError("no heading '" + heading + "' on " + browser.driver.getCurrentUrl() + ": "
                    + browser.driver.findElement(By.tagName("body")).getText(), e);
        }
    }

    /** Saves the review page to target/ and, when -Dapprover.screenshot.dir is set, there too (docs/). */
    private void screenshot(String name) throws IOException {
        Path shot = browser.driver.getScreenshotAs(OutputType.FILE).toPath();
        Path target = Files.createDirectories(Path.of("target"));
        Files.copy(shot, target.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        String dir = System.getProperty("approver.screenshot.dir");
        if (dir != null && !dir.isBlank()) {
            Files.copy(shot, Path.of(dir).resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private String attackerPage(String body) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] html = ("<!doctype html><html><body>" + body + "</body></html>").getBytes(StandardCharsets.UTF_8);
        server.createContext("/", ex -> {
            ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            ex.sendResponseHeaders(200, html.length);
            ex.getResponseBody().write(html);
            ex.close();
        });
        server.start();
        closeAfter.add(() -> server.stop(0));
        return "http://localhost:" + server.getAddress().getPort() + "/prize";
    }

    /** Lets anything in flight land before asserting that nothing was published. */
    private static void settle() throws InterruptedException {
        Thread.sleep(1500);
    }

    private static <T> List<T> readAll(String topic, String key,
                                       Class<? extends org.apache.avro.specific.SpecificRecordBase> type) {
        List<T> out = new ArrayList<>();
        for (byte[] value : KeyRecords.values(KAFKA.clientProperties(), topic, key)) {
            @SuppressWarnings("unchecked")
            T v = (T) AvroSerdes.serde(type).deserialize(topic, value);
            out.add(v);
        }
        return out;
    }

    private static List<Decision> decisions(String call) {
        return readAll(prefix + "decisions", ActionKey.format(TASK, call), Decision.class);
    }

    private static List<Receipt> receipts(String call) {
        return readAll(prefix + "receipts", ActionKey.format(TASK, call), Receipt.class);
    }

    private static Receipt latestReceipt(String call) {
        List<Receipt> all = receipts(call);
        return all.get(all.size() - 1);
    }

    private static Receipt awaitReceipt(String call, Predicate<Receipt> match) {
        return await().atMost(WAIT).pollInterval(Duration.ofMillis(300))
                .until(() -> receipts(call).stream().filter(match).findFirst().orElse(null), r -> r != null);
    }
}
