package io.actiongate.chaos;

import java.io.IOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.http.NettyWrapper;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;

import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.testing.ApprovalPageClient;

/**
 * The approval service inside the storm: {@value #REPLICAS} replicas of {@code run
 * --roles=approver} as child JVMs sharing one signing key and one sealing key (so sessions, one-time code secrets and
 * used challenges are shared through {@code approver-state}), an OpenID Connect provider in this JVM (navikt's
 * mock-oauth2-server, non-interactive), and {@value #PEOPLE} people who sign in once, set up a one-time code app and
 * then decide the reviews handed to them through the pages, as a browser without JavaScript would: open the review
 * until it offers the form, post it with the anti-forgery token, the page's {@code Origin}, the single-use challenge
 * and, to approve, a fresh one-time code. Each person alternates between the replicas (a load balancer).
 *
 * <p>A {@code KILL_APPROVER} fault arms {@link #killNextDecision}: the next person to post a decision has the replica
 * that serves the post killed with {@code kill -9} a few milliseconds after sending it, so the decision may or may
 * not have been signed and published. The person then does what a person would: opens the review again on the other
 * replica and decides again if the page still offers the form. A second decision published for an action that way
 * must not lead to a second effect, and no effect may happen without one valid approval (check (m)).
 *
 * <p>A code's 30-second step is accepted once per person, so each person approves at most once per step; the load
 * hands reviews to the service only while a person is free ({@link #offer}).
 */
final class ServiceApprover implements AutoCloseable {

    static final String KEY_ID = "chaos-approval-service";
    static final int REPLICAS = 2;
    static final int PEOPLE = 3;
    private static final String ISSUER_ID = "chaos";
    private static final String CLIENT_ID = "actiongate-approver";
    private static final String APPROVER_READY = "actiongate running roles";
    private static final Duration REVIEW_WAIT = Duration.ofSeconds(90);
    /** Longer than any KILL_APPROVER keeps a replica down (3 s). */
    private static final long SELF_STOP_RESTART_AFTER_MS = 10_000;

    /** A review handed to the service: {@code APPROVE} or {@code REJECT} of one action. */
    record Job(Load.Action action, String decision) {
    }

    /** What the service's people did, for the report. */
    record Stats(long handed, long posted, long published, long replicaKills, long decidedAgainAfterKill,
                 long alreadyDecidedAfterKill, long failures, long selfStopRestarts) {
    }

    private final MockOAuth2Server idp;
    private final KeyFiles.GeneratedKey key;
    private final List<Child> replicas = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<URI> urls = new ArrayList<>();
    private final BlockingQueue<Job> queue = new LinkedBlockingQueue<>();
    private final List<Thread> workers = new ArrayList<>();
    private final List<Person> people = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicInteger busy = new AtomicInteger();
    private final AtomicReference<Long> killArmed = new AtomicReference<>();
    private final Map<String, Boolean> handed = new ConcurrentHashMap<>();
    private final AtomicLong posted = new AtomicLong();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong kills = new AtomicLong();
    private final AtomicLong decidedAgain = new AtomicLong();
    private final AtomicLong alreadyDecided = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong selfStopRestarts = new AtomicLong();
    private final Random random;
    private volatile boolean running = true;
    private volatile java.util.function.Consumer<Load.Action> fallback;
    private java.io.PrintWriter out;

    private ServiceApprover(MockOAuth2Server idp, KeyFiles.GeneratedKey key, long seed) {
        this.idp = idp;
        this.key = key;
        this.random = new Random(seed * 17 + 3);
    }

    /** Writes the keys and each replica's configuration; starts the identity provider, no replica yet. */
    static ServiceApprover create(Path results, Path logs, String bootstrap, String prefix, String heap, long seed,
                                  List<Integer> ports) throws IOException {
        return create(results, logs, bootstrap, prefix, heap, seed, ports, System.getProperty("java.class.path"));
    }

    /** As above, the replicas running on {@code classpath} (an upgrade run: the previous release's jar). */
    static ServiceApprover create(Path results, Path logs, String bootstrap, String prefix, String heap, long seed,
                                  List<Integer> ports, String classpath) throws IOException {
        Path dir = Files.createDirectories(results.resolve("approver"));
        KeyFiles.GeneratedKey key = KeyFiles.generate(Files.createDirectories(dir.resolve("keys")), KEY_ID);
        byte[] sealing = new byte[32];
        new SecureRandom().nextBytes(sealing);
        Path stateKey = Files.writeString(dir.resolve("state.key"),
                "k1=" + Base64.getUrlEncoder().withoutPadding().encodeToString(sealing) + "\n");
        // Netty, as the dev kit's provider: the default MockWebServer needs JUnit 4 on the class path
        MockOAuth2Server idp = new MockOAuth2Server(new OAuth2Config(false, null, null, false,
                new OAuth2TokenProvider(), Set.of(new DefaultOAuth2TokenCallback(ISSUER_ID, "chaos-nobody", "JWT",
                List.of(CLIENT_ID), Map.of("org", Load.ORG), 3600)), new NettyWrapper()));
        int idpPort;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            idpPort = free.getLocalPort();
        }
        idp.start(InetAddress.getLoopbackAddress(), idpPort);
        ServiceApprover s = new ServiceApprover(idp, key, seed);
        // the provider names its issuer after the host it is asked on: localhost, as the approver asks it
        String issuer = "http://localhost:" + idpPort + "/" + ISSUER_ID;
        for (int i = 0; i < ports.size(); i++) {
            int port = ports.get(i);
            Properties p = new Properties();
            p.setProperty("bootstrap.servers", bootstrap);
            p.setProperty("topic.prefix", prefix);
            p.setProperty("http.port", "0");
            p.setProperty("http.bind.address", "127.0.0.1");
            p.setProperty("approver.http.bind.address", "127.0.0.1");
            p.setProperty("approver.http.port", Integer.toString(port));
            p.setProperty("approver.public.url", "http://localhost:" + port);
            p.setProperty("approver.oidc.issuer", issuer);
            p.setProperty("approver.oidc.client.id", CLIENT_ID);
            p.setProperty("approver.signing.key.file", key.privateKeyFile().toString());
            p.setProperty("approver.signing.key.id", KEY_ID);
            p.setProperty("approver.state.key.file", stateKey.toString());
            p.setProperty("approver.approvers", Load.ORG + ":*");
            p.setProperty("approver.sender.webhook", "chaos-webhook");
            p.setProperty("connectors.smtp.from", "assistant@example.com");
            Path file = dir.resolve("approver-" + (i + 1) + ".properties");
            try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                p.store(w, "chaos run approval service replica");
            }
            s.replicas.add(new Child("approver-" + (i + 1), Child.javaCommand(heap, classpath,
                    io.actiongate.cli.Main.class.getName(), List.of("run", "--roles=approver", "--config",
                            file.toString())), Map.of(), logs, APPROVER_READY));
            s.urls.add(URI.create("http://localhost:" + port));
        }
        return s;
    }

    List<Child> replicas() {
        return replicas;
    }

    /** Replica {@code index} is now {@code replica} (an upgrade replaced it); the people go on using both. */
    void replace(int index, Child replica) {
        replicas.set(index, replica);
    }

    /** The service's key in {@code gate.trusted.keys} form. */
    String trustedKeyConfig() {
        return KEY_ID + "=" + Base64.getEncoder().encodeToString(key.publicKey().getEncoded());
    }

    PublicKey publicKey() {
        return key.publicKey();
    }

    /** Signs the people in and sets up their code apps (the replicas must be up); then starts them deciding. */
    void startPeople(java.io.PrintWriter log) throws Exception {
        this.out = log;
        Thread keeper = new Thread(this::keepReplicasUp, "chaos-approver-keeper");
        keeper.setDaemon(true);
        workers.add(keeper);
        keeper.start();
        for (int i = 1; i <= PEOPLE; i++) {
            Person person = new Person("reviewer-" + i, i - 1);
            people.add(person);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
            while (true) {
                try {
                    person.signIn();
                    person.enrolTotp();
                    break;
                } catch (IOException | ApprovalPageClient.PageException | RuntimeException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    note("approval service: " + person.name + " could not sign in and set up a code app on "
                            + urls.get(person.replica) + " (" + e + "); trying the other replica");
                    person.client.clearCookies();
                    person.replica = (person.replica + 1) % urls.size();
                    Thread.sleep(2_000);
                }
            }
            Thread t = new Thread(() -> person.work(), "chaos-" + person.name);
            t.setDaemon(true);
            workers.add(t);
        }
        workers.stream().filter(t -> t != keeper).forEach(Thread::start);
    }

    /**
     * A replica that stopped on its own (not killed by a fault: those are restarted by the fault) is restarted once
     * it has been down for {@link #SELF_STOP_RESTART_AFTER_MS}, as a Deployment would; counted in the report.
     */
    private void keepReplicasUp() {
        Map<Child, Long> downSince = new java.util.HashMap<>();
        while (running) {
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.currentTimeMillis();
            for (Child replica : replicas) {
                if (replica.alive()) {
                    downSince.remove(replica);
                    continue;
                }
                long since = downSince.computeIfAbsent(replica, r -> now);
                if (now - since >= SELF_STOP_RESTART_AFTER_MS && running) {
                    selfStopRestarts.incrementAndGet();
                    note("approval service: " + replica.name() + " was down for " + (now - since) / 1000
                            + " s (stopped on its own; see its log): restarted");
                    replica.start();
                    downSince.remove(replica);
                }
            }
        }
    }

    /** Reviews waiting for a person beyond which a rejection is signed by the load instead. */
    static final int MAX_WAITING_REJECTIONS = 4 * PEOPLE;

    /**
     * Hands the review of {@code action} to the service when a person is free for it; false when not (the load
     * signs it itself then). A rejection needs no one-time code, so it is taken while few reviews wait: without a
     * bound, a storm that slows the pages (replicas killed, brokers cut off) piles up rejections nobody reaches
     * before the run ends (a 30-minute cluster run left 1,592 of them waiting).
     */
    boolean offer(Load.Action action, String decision) {
        if (!running) {
            return false;
        }
        if (decision.equals("APPROVE") && busy.get() + queue.size() >= PEOPLE) {
            return false;
        }
        if (!decision.equals("APPROVE") && queue.size() >= MAX_WAITING_REJECTIONS) {
            return false;
        }
        if (handed.putIfAbsent(action.key, Boolean.TRUE) != null) {
            return true;
        }
        queue.add(new Job(action, decision));
        return true;
    }

    /**
     * Hands the review of {@code action} to the people whether or not one is free (an upgrade run: approvals that
     * must come through the pages, each with a fresh one-time code, after the replicas were replaced).
     */
    void hand(Load.Action action, String decision) {
        if (handed.putIfAbsent(action.key, Boolean.TRUE) == null) {
            queue.add(new Job(action, decision));
        }
    }

    /**
     * Whether each person is still signed in, as their browser would find out: their session cookie (set when they
     * signed in at the start of the run) opens the queue on every replica without sending them to sign in again.
     */
    Map<String, Boolean> signedIn() {
        Map<String, Boolean> out = new LinkedHashMap<>();
        for (Person person : people) {
            boolean ok = true;
            for (URI u : urls) {
                try {
                    HttpResponse<String> r = person.client.get(u.resolve("/queue"));
                    ok &= r.statusCode() == 200;
                } catch (IOException e) {
                    ok = false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return out;
                }
            }
            out.put(person.name, ok);
        }
        return out;
    }

    /** Per person since {@code sinceMs}: sign-ins, one-time code app set-ups and approvals published. */
    Map<String, Activity> activity(long sinceMs) {
        Map<String, Activity> out = new LinkedHashMap<>();
        for (Person person : people) {
            out.put(person.name, new Activity(person.signIns.stream().filter(t -> t >= sinceMs).count(),
                    person.enrolments.stream().filter(t -> t >= sinceMs).count(),
                    person.approvalsPublished.stream().filter(t -> t >= sinceMs).count()));
        }
        return out;
    }

    /** What one person did in a while: signed in, set up a code app, approved with a one-time code. */
    record Activity(long signIns, long codeAppSetUps, long approvals) {
        @Override
        public String toString() {
            return signIns + " sign-in(s), " + codeAppSetUps + " code app set-up(s), " + approvals + " approval(s)";
        }
    }

    /**
     * A person gave up on a review (the page never offered the form, or every post failed): the load's own approver
     * decides it, so the action still settles; counted as a failure of the service in the report.
     */
    private void giveUp(Job job, String why) {
        failures.incrementAndGet();
        note("approval service: gave up on " + job.action().key + " (" + why + "); the load's approver decides it");
        java.util.function.Consumer<Load.Action> f = fallback;
        if (f != null) {
            f.accept(job.action());
        }
    }

    /** Who decides a review the people gave up on. */
    void fallback(java.util.function.Consumer<Load.Action> f) {
        this.fallback = f;
    }

    /** Arms the next decision post to kill its replica {@code delayMs} after sending (negative: disarms). */
    void killNextDecision(long delayMs) {
        killArmed.set(delayMs < 0 ? null : delayMs);
    }

    Stats stats() {
        return new Stats(handed.size(), posted.get(), published.get(), kills.get(), decidedAgain.get(),
                alreadyDecided.get(), failures.get(), selfStopRestarts.get());
    }

    /** Jobs handed and not yet done. */
    int pending() {
        return queue.size() + busy.get();
    }

    @Override
    public void close() {
        running = false;
        workers.forEach(Thread::interrupt);
        idp.shutdown();
    }

    private void note(String line) {
        java.io.PrintWriter o = out;
        if (o != null) {
            synchronized (o) {
                o.println(line);
                o.flush();
            }
        }
    }

    /** One person at the pages: their scripted browser (a cookie jar and a one-time code app), a replica. */
    private final class Person {
        final String name;
        /** Cookies for every replica (a load balancer's one origin in a real deployment), never the IdP. */
        final ApprovalPageClient client = new ApprovalPageClient(urls, Duration.ofSeconds(3), Clock.systemUTC());
        int replica;
        final List<Long> signIns = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<Long> enrolments = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<Long> approvalsPublished = new java.util.concurrent.CopyOnWriteArrayList<>();

        Person(String name, int replica) {
            this.name = name;
            this.replica = replica % urls.size();
        }

        URI url(String path) {
            return urls.get(replica).resolve(path);
        }

        void signIn() throws Exception {
            signIns.add(System.currentTimeMillis());
            idp.enqueueCallback(new DefaultOAuth2TokenCallback(ISSUER_ID, name, "JWT", List.of(CLIENT_ID),
                    Map.of("org", Load.ORG, "email", name + "@chaos.example"), 3600));
            client.signIn(urls.get(replica), "/queue");
        }

        void enrolTotp() throws Exception {
            enrolments.add(System.currentTimeMillis());
            client.enrolTotp(urls.get(replica));
        }

        void work() {
            while (running) {
                Job job;
                try {
                    job = queue.poll(500, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                }
                if (job == null) {
                    continue;
                }
                busy.incrementAndGet();
                try {
                    decide(job);
                } catch (InterruptedException e) {
                    return;
                } catch (ApprovalPageClient.PageException | RuntimeException e) {
                    giveUp(job, e.toString());
                } finally {
                    busy.decrementAndGet();
                }
            }
        }

        /** Decides one review, across replica kills, until the page no longer offers the form. */
        void decide(Job job) throws InterruptedException, ApprovalPageClient.PageException {
            String path = "/review/" + job.action().key;
            long deadline = System.nanoTime() + REVIEW_WAIT.toNanos() * 4;
            boolean afterKill = false;
            int refused = 0;
            while (running && System.nanoTime() < deadline) {
                replica = (replica + 1) % urls.size(); // the load balancer's next replica
                String html;
                try {
                    html = client.awaitForm(url(path), REVIEW_WAIT);
                } catch (IOException e) {
                    Thread.sleep(500); // this replica is down: the next one
                    continue;
                }
                if (html == null) {
                    if (afterKill) {
                        alreadyDecided.incrementAndGet();
                    }
                    return; // decided (here or on a killed replica), expired, or never offered: the checker decides
                }
                if (afterKill) {
                    decidedAgain.incrementAndGet();
                }
                Map<String, String> form = client.decisionForm(html, job.decision());
                Long killAfter = killArmed.getAndSet(null);
                Child target = replicas.get(replica);
                posted.incrementAndGet();
                try {
                    java.util.concurrent.CompletableFuture<HttpResponse<String>> answer = client.postAsync(url(path),
                            ApprovalPageClient.origin(urls.get(replica)), form);
                    if (killAfter != null) {
                        Thread.sleep(killAfter);
                        target.kill9();
                        kills.incrementAndGet();
                        note("approval service: killed " + target.name() + " (kill -9) " + killAfter
                                + " ms after " + name + " posted " + job.decision() + " of " + job.action().key);
                        afterKill = true;
                    }
                    HttpResponse<String> r = answer.get(40, TimeUnit.SECONDS);
                    if (ApprovalPageClient.published(r)) {
                        published.incrementAndGet();
                        if (job.decision().equals("APPROVE")) {
                            approvalsPublished.add(System.currentTimeMillis());
                        }
                        return;
                    }
                    if (r.statusCode() / 100 == 4 && ++refused >= 3) {
                        // refused three times (e.g. the code's step taken): the load's approver decides it
                        giveUp(job, "refused " + refused + " times, last HTTP " + r.statusCode());
                        return;
                    }
                    // refused or failed: open the review again; it shows whether the action is still waiting
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    afterKill = true; // the answer never came: maybe published, maybe not
                }
                Thread.sleep(300);
            }
            giveUp(job, "no decision within " + REVIEW_WAIT.toSeconds() * 4 + " s");
        }
    }
}
