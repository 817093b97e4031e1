package io.actiongate.notifier;

import java.util.concurrent.atomic.AtomicLong;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The notifier's series (docs/notifications.md, "What an operator sees"). Labels are stages, channels and results,
 * never an action id, an address or a URL.
 */
public final class NotifierMetrics {

    private final Counter notices;
    private final Counter messages;
    private final Gauge unconfirmed;
    private final Gauge waiting;
    private final AtomicLong unconfirmedNow = new AtomicLong();

    public NotifierMetrics(PrometheusRegistry registry) {
        notices = Counter.builder().name("actiongate_notifier_notices")
                .help("Notices by stage and result: sent (every message delivered), partial, failed (none "
                        + "delivered), claimed_elsewhere (another instance or an earlier run claimed it), "
                        + "no_destination (its route names nothing this notifier can send to), claim_failed (the "
                        + "state topic did not confirm the claim; tried again at the next check)")
                .labelNames("stage", "result").register(registry);
        messages = Counter.builder().name("actiongate_notifier_messages")
                .help("Messages by channel (slack, webhook, email) and delivery (delivered, refused, unknown, "
                        + "not_sent)")
                .labelNames("channel", "delivery").register(registry);
        unconfirmed = Gauge.builder().name("actiongate_notifier_unconfirmed_notices")
                .help("Notices claimed longer than notifier.unconfirmed.after ago without a recorded result: their "
                        + "instance stopped between the claim and the last message; never sent again")
                .register(registry);
        waiting = Gauge.builder().name("actiongate_notifier_waiting_actions")
                .help("Actions waiting for approval as this notifier reads them, by whether a route names anyone")
                .labelNames("routed").register(registry);
    }

    void notice(Stage stage, String result) {
        notices.labelValues(stage.id(), result).inc();
    }

    void message(String channel, Delivery delivery) {
        messages.labelValues(channel, delivery.id()).inc();
    }

    void unconfirmed(int count) {
        unconfirmedNow.set(count);
        unconfirmed.set(count);
    }

    void waiting(long routed, long unrouted) {
        waiting.labelValues("true").set(routed);
        waiting.labelValues("false").set(unrouted);
    }

    /** The unconfirmed notices this instance counts now. */
    public long unconfirmed() {
        return unconfirmedNow.get();
    }

    /** How many waiting actions the last check counted with a route that names someone, or without (tests). */
    long waiting(boolean routed) {
        return (long) waiting.labelValues(Boolean.toString(routed)).get();
    }

    /** How many notices of {@code stage} ended with {@code result} (tests and logs). */
    public long notices(Stage stage, String result) {
        return (long) notices.labelValues(stage.id(), result).get();
    }

    /** How many messages of {@code channel} ended as {@code delivery}. */
    public long messages(String channel, Delivery delivery) {
        return (long) messages.labelValues(channel, delivery.id()).get();
    }
}
