package io.actiongate.notifier;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.notifier.NoticeLedger.Claim;
import io.actiongate.policy.NotificationRoutes;
import io.actiongate.policy.PolicyBodies;

/**
 * The notifier's one decision, made at every check: for each waiting action, the route that names its reviewers
 * (through the policy module), the notice that is due ({@link NoticePlan}), and then, on a send thread, the fence:
 * claim the notice in the {@link NoticeLedger} and send only if this claim won, each message at most once, then
 * record the result. A crash between claim and result loses (part of) that notice, never sends it twice; such a claim
 * is reported as unconfirmed once it is older than {@code notifier.unconfirmed.after}.
 */
final class Notifier {

    private static final Logger LOG = LoggerFactory.getLogger(Notifier.class);
    /** Tries of a message that did not leave (its connection never came up), and the pauses between them. */
    static final List<Duration> NOT_SENT_PAUSES = List.of(Duration.ofSeconds(1), Duration.ofSeconds(2));
    private static final int MAX_REMEMBERED = 10_000;

    private final NotifierConfig config;
    private final WaitingBook book;
    private final PolicyBodies policy;
    private final NoticeLedger ledger;
    private final Destinations channels;
    private final NotifierMetrics metrics;
    private final Clock clock;
    private final Executor sends;
    private final BooleanSupplier sourcesReady;
    private final SummaryText summaries = new SummaryText();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final Set<String> withoutDestination = ConcurrentHashMap.newKeySet();
    private final Set<String> reportedUnconfirmed = ConcurrentHashMap.newKeySet();
    private volatile Pause pause = d -> Thread.sleep(d.toMillis());
    /** Claims without a result are looked for at most this often (the ledger holds a week of claims). */
    static final Duration UNCONFIRMED_EVERY = Duration.ofSeconds(10);
    private Instant unconfirmedCheckedAt = Instant.MIN;

    /** The messages a route turns into, each with its channel and how it is sent ({@link Channels}). */
    interface Destinations {
        /** The messages {@code route} asks for that this notifier can send (the others are logged, not sent). */
        List<Channels.Target> targets(NotificationRoutes.Route route);
    }

    /** How a send thread waits before trying a message that did not leave again (tests do not wait). */
    interface Pause {
        void sleep(Duration d) throws InterruptedException;
    }

    Notifier(NotifierConfig config, WaitingBook book, PolicyBodies policy, NoticeLedger ledger, Destinations channels,
             NotifierMetrics metrics, Clock clock, Executor sends, BooleanSupplier sourcesReady) {
        this.config = config;
        this.book = book;
        this.policy = policy;
        this.ledger = ledger;
        this.channels = channels;
        this.metrics = metrics;
        this.clock = clock;
        this.sends = sends;
        this.sourcesReady = sourcesReady;
    }

    Notifier pausingWith(Pause p) {
        this.pause = p;
        return this;
    }

    /** One check of every waiting action; nothing before the feed, the ledger and the policy have been read. */
    void check() {
        if (!sourcesReady.getAsBoolean() || !ledger.caughtUp()) {
            return;
        }
        Instant now = clock.instant();
        long routed = 0;
        long unrouted = book.waitingWithoutProposal();
        for (WaitingBook.Waiting w : book.waiting()) {
            WaitingBook.Proposed p = w.proposal();
            Optional<NotificationRoutes.Route> route = NotificationRoutes.route(policy, p.orgId(), p.profileId(),
                    p.toolName());
            if (route.isEmpty() || route.get().nobody()) {
                unrouted++;
                continue;
            }
            routed++;
            Instant deadline = w.since().plus(config.approvalWait());
            Duration remindBefore = route.get().remindBefore().orElse(config.reminderBefore());
            Claim first = ledger.claim(Notice.id(Stage.FIRST, w.key(), w.since()));
            boolean reminderClaimed = ledger.claimed(Notice.id(Stage.REMINDER, w.key(), w.since()));
            NoticePlan.due(now, deadline, remindBefore, first == null ? null : first.at(), reminderClaimed)
                    .ifPresent(stage -> submit(w, route.get(), stage, deadline));
        }
        metrics.waiting(routed, unrouted);
        if (!now.isBefore(unconfirmedCheckedAt.plus(UNCONFIRMED_EVERY))) {
            unconfirmedCheckedAt = now;
            reportUnconfirmed(now);
        }
    }

    private void submit(WaitingBook.Waiting w, NotificationRoutes.Route route, Stage stage, Instant deadline) {
        String id = Notice.id(stage, w.key(), w.since());
        if (!inFlight.add(id)) {
            return;
        }
        try {
            sends.execute(() -> {
                try {
                    send(w, route, stage, id, deadline);
                } catch (RuntimeException e) {
                    LOG.warn("{} notice of {} failed: {}", stage.id(), w.key(), e.toString());
                } finally {
                    inFlight.remove(id);
                }
            });
        } catch (RejectedExecutionException e) {
            inFlight.remove(id); // every send thread busy and the queue full: the next check submits it again
        }
    }

    /** Claims the notice and, if this claim won, sends its messages once each and records the result. */
    void send(WaitingBook.Waiting w, NotificationRoutes.Route route, Stage stage, String id, Instant deadline) {
        List<Channels.Target> targets = channels.targets(route);
        if (targets.isEmpty()) {
            if (remember(withoutDestination, id)) {
                metrics.notice(stage, "no_destination");
                LOG.warn("{} notice of {}: route {} names nothing this notifier can send to; nobody is told",
                        stage.id(), w.key(), route.key());
            }
            return;
        }
        boolean won;
        try {
            won = ledger.tryClaim(id, config.instanceId(), clock.instant());
        } catch (RuntimeException e) {
            metrics.notice(stage, "claim_failed");
            LOG.warn("{} notice of {} not claimed, so not sent (tried again at the next check): {}", stage.id(),
                    w.key(), e.getMessage());
            return;
        }
        if (!won) {
            metrics.notice(stage, "claimed_elsewhere");
            LOG.debug("{} notice of {} was claimed by another instance", stage.id(), w.key());
            return;
        }
        Notice notice = notice(w, stage, id, deadline);
        int delivered = 0;
        Map<String, Integer> byDelivery = new HashMap<>();
        for (Channels.Target t : targets) {
            Delivery d = deliver(t, notice);
            metrics.message(t.channel(), d);
            byDelivery.merge(t.channel() + " " + d.id(), 1, Integer::sum);
            if (d == Delivery.DELIVERED) {
                delivered++;
            }
        }
        String nonce = Optional.ofNullable(ledger.claim(id)).map(Claim::nonce).orElse("");
        try {
            ledger.result(new NoticeLedger.Result(id, nonce, clock.instant(), delivered, targets.size()));
        } catch (RuntimeException e) {
            LOG.warn("{} notice of {}: its result was not recorded (it will be reported unconfirmed): {}",
                    stage.id(), w.key(), e.getMessage());
        }
        String result = delivered == targets.size() ? "sent" : delivered == 0 ? "failed" : "partial";
        metrics.notice(stage, result);
        LOG.info("{} notice of {} {}: {} of {} messages delivered {}", stage.id(), w.key(), result, delivered,
                targets.size(), byDelivery);
    }

    /** One message: tried again only while nothing of it left, within this claim. */
    private Delivery deliver(Channels.Target t, Notice notice) {
        for (int attempt = 0; ; attempt++) {
            Delivery d;
            try {
                d = t.send().apply(notice);
            } catch (RuntimeException e) {
                LOG.warn("{} {} of {}: {}", t.channel(), t.name(), notice.action(), e.getClass().getSimpleName());
                return Delivery.UNKNOWN;
            }
            if (d != Delivery.NOT_SENT || attempt >= NOT_SENT_PAUSES.size()) {
                return d;
            }
            try {
                pause.sleep(NOT_SENT_PAUSES.get(attempt));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Delivery.NOT_SENT;
            }
        }
    }

    private Notice notice(WaitingBook.Waiting w, Stage stage, String id, Instant deadline) {
        WaitingBook.Proposed p = w.proposal();
        return new Notice(stage, id, w.key(), SummaryText.plain(p.orgId()), SummaryText.plain(p.profileId()),
                SummaryText.plain(p.provider()), SummaryText.plain(p.operation()), SummaryText.plain(p.toolName()),
                summaries.clean(p.summary()), deadline,
                config.reviewPage(w.key().taskId(), w.key().toolCallId()));
    }

    private void reportUnconfirmed(Instant now) {
        List<Claim> open = ledger.unconfirmed(now, config.unconfirmedAfter()).stream()
                .filter(c -> !inFlight.contains(c.id())).toList();
        for (Claim c : open) {
            if (remember(reportedUnconfirmed, c.id())) {
                LOG.warn("notice {} was claimed by {} at {} and has no recorded result: that instance stopped "
                        + "between the claim and its last message, so some of its reviewers may not have been told; "
                        + "it is not sent again", c.id(), c.owner().isEmpty() ? "an instance" : c.owner(), c.at());
            }
        }
        reportedUnconfirmed.retainAll(open.stream().map(Claim::id).toList());
        metrics.unconfirmed(open.size());
    }

    private static boolean remember(Set<String> seen, String id) {
        if (seen.size() >= MAX_REMEMBERED) {
            seen.clear();
        }
        return seen.add(id);
    }
}
