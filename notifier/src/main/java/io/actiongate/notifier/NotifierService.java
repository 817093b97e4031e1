package io.actiongate.notifier;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

import io.actiongate.kafka.KafkaClients;
import io.actiongate.policy.PolicyTopicReader;
import io.actiongate.runtime.Shutdown;
import io.actiongate.serde.UnknownFormatException;
import io.actiongate.topics.Topics;

/**
 * The notifier (role {@code notifier}, docs/contract.md section 7, "Reviewers are told"): its policy view, the feed of
 * waiting actions, its ledger, its destinations and the check that ties them together. {@link #start} brings all of
 * it up or nothing; {@link #close} stops it in reverse order.
 */
public final class NotifierService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NotifierService.class);
    private static final Duration POLICY_CATCH_UP = Duration.ofSeconds(60);

    private final Shutdown started = new Shutdown("the notifier");
    private final NotifierMetrics metrics;
    private NotifierConfig config;
    private PolicyTopicReader policy;
    private WaitingFeed feed;
    private KafkaLedger ledger;
    private volatile Throwable checkFailure;
    private ScheduledExecutorService checker;

    private NotifierService(NotifierMetrics metrics) {
        this.metrics = metrics;
    }

    /**
     * Starts from the flat configuration. {@code approverUrl}: the public URL of an approval service bound in this
     * process, whose review pages notices link to unless {@code notifier.review.url} is set.
     */
    public static NotifierService start(Map<String, String> raw, PrometheusRegistry registry,
                                        Optional<URI> approverUrl) {
        NotifierConfig config = NotifierConfig.from(raw);
        boolean ownReviewUrl = raw.get(NotifierConfig.REVIEW_URL) != null
                && !raw.get(NotifierConfig.REVIEW_URL).isBlank();
        if (!ownReviewUrl && approverUrl.isPresent()) {
            config = config.withReviewUrl(NotifierConfig.reviewUrlOf(approverUrl.get()));
        }
        return start(config, new NotifierMetrics(registry), Clock.systemUTC());
    }

    public static NotifierService start(NotifierConfig config, NotifierMetrics metrics, Clock clock) {
        if (config.reviewUrlUnbound()) {
            throw new IllegalArgumentException(NotifierConfig.REVIEW_URL + ": the review page names port 0; set "
                    + NotifierConfig.REVIEW_URL + " (or run the approver in the same process)");
        }
        NotifierService s = new NotifierService(metrics);
        try {
            s.startAll(config, clock);
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private void startAll(NotifierConfig c, Clock clock) {
        this.config = c;
        KafkaClients clients = KafkaClients.of(c.bootstrapServers(), c.kafkaClient());
        Channels channels = started.push(Channels.of(c));
        ledger = started.push(new KafkaLedger(clients, c.stateTopic(), c.stateRetention()));
        policy = started.push(new PolicyTopicReader(clients.consumer("actiongate-notifier-policy").follower()
                .create(new StringDeserializer(), new ByteArrayDeserializer()), Topics.POLICY.name(c.topicPrefix()),
                null).start(POLICY_CATCH_UP, "notifier-policy"));
        WaitingBook book = new WaitingBook();
        feed = started.push(new WaitingFeed(clients, c.topicPrefix(), book).start());
        AtomicInteger threads = new AtomicInteger();
        ThreadPoolExecutor sends = new ThreadPoolExecutor(c.sendThreads(), c.sendThreads(), 1, TimeUnit.MINUTES,
                new ArrayBlockingQueue<>(1_000), r -> {
                    Thread t = new Thread(r, "notifier-send-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        started.push(() -> {
            sends.shutdown();
            if (!sends.awaitTermination(30, TimeUnit.SECONDS)) {
                sends.shutdownNow();
            }
        });
        Notifier notifier = new Notifier(c, book, policy, ledger, channels, metrics, clock, sends,
                () -> feed.caughtUp() && policy.ready());
        checker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "notifier-check");
            t.setDaemon(true);
            return t;
        });
        started.push(checker::shutdownNow);
        checker.scheduleWithFixedDelay(() -> {
            try {
                notifier.check();
                checkFailure = null;
            } catch (RuntimeException e) {
                if (checkFailure == null) {
                    LOG.warn("checking the waiting actions failed (tried again): {}", e.toString());
                }
                checkFailure = e;
            }
        }, 0, c.checkInterval().toMillis(), TimeUnit.MILLISECONDS);
        LOG.info("notifier {} on {}: review pages {}, slack webhooks {}, json webhooks {}, email {}",
                c.instanceId(), c.stateTopic(), c.reviewUrl(), c.slack().keySet(), c.webhooks().keySet(),
                c.email().isPresent() ? "on" : "off");
    }

    /** Ready once the policy, the waiting actions and the ledger are read up to where they stood at start. */
    public boolean ready() {
        return feed != null && feed.isRunning() && feed.caughtUp() && ledger != null && ledger.isRunning()
                && ledger.caughtUp() && policy != null && policy.ready() && policy.following();
    }

    public boolean awaitReady(Duration timeout) throws InterruptedException {
        return feed.awaitCaughtUp(timeout) && ledger.awaitCaughtUp(timeout) && ready();
    }

    /** Why the notifier stopped on its own, or null. */
    public String failure() {
        if (ledger != null && ledger.failure() != null) {
            // a record of a newer notifier: its one line, as every role prints a refused downgrade
            UnknownFormatException newer = UnknownFormatException.in(ledger.failure());
            return newer != null ? newer.getMessage() : "the notifier's state reader stopped: " + ledger.failure();
        }
        if (feed != null && feed.failure() != null) {
            UnknownFormatException newer = UnknownFormatException.in(feed.failure());
            return newer != null ? newer.getMessage() : "the notifier's feed stopped: " + feed.failure();
        }
        if (policy != null && policy.ready() && !policy.following()) {
            return "the notifier's policy reader stopped";
        }
        return null;
    }

    public NotifierConfig config() {
        return config;
    }

    public NotifierMetrics metrics() {
        return metrics;
    }

    @Override
    public void close() {
        started.close();
    }
}
