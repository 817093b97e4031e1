package io.actiongate.connector.spi;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;

/**
 * W3C trace context ({@code traceparent}, {@code tracestate}) carried through actiongate with the OpenTelemetry API:
 * a tool host's trace continues from its proposal to the reservation, the provider request (a connector adds
 * {@link #injectCurrent} to its request), the outcome, the reconciliation and every receipt. No agent and no SDK
 * are needed: without an SDK the carried context itself is made current (same trace id and parent); when an SDK is
 * installed as {@link GlobalOpenTelemetry}, each step is a real span, a child of the carried one. The W3C
 * propagator is used directly, so propagation never depends on the SDK's configuration.
 */
public final class Tracing {

    public static final String TRACEPARENT = "traceparent";
    public static final String TRACESTATE = "tracestate";

    private static final String INSTRUMENTATION = "io.actiongate";
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
    /** Reads by name only, as the W3C propagator asks ({@code keys} is a deprecated default it never calls). */
    private static final TextMapGetter<Map<String, String>> MAP_GETTER = new TextMapGetter<>() {
        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private Tracing() {
    }

    /** A scope that ends its span (if any) and restores the previous context when closed. */
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Continues the trace whose W3C headers are {@code carrier} ({@code traceparent}, optional {@code tracestate}):
     * makes it current until the scope closes, as a span named {@code name} when an SDK is installed. A missing or
     * malformed {@code traceparent} changes nothing.
     */
    public static Scope continueTrace(Map<String, String> carrier, String name, SpanKind kind) {
        if (carrier == null || carrier.isEmpty()) {
            return () -> { };
        }
        Context parent = W3C.extract(Context.root(), carrier, MAP_GETTER);
        if (!Span.fromContext(parent).getSpanContext().isValid()) {
            return () -> { };
        }
        Span span = GlobalOpenTelemetry.getTracer(INSTRUMENTATION).spanBuilder(name).setParent(parent)
                .setSpanKind(kind).startSpan();
        io.opentelemetry.context.Scope scope = parent.with(span).makeCurrent();
        return () -> {
            scope.close();
            span.end();
        };
    }

    /** The current trace context as W3C headers; empty when there is none. */
    public static Map<String, String> currentHeaders() {
        Map<String, String> headers = new LinkedHashMap<>();
        W3C.inject(Context.current(), headers, (carrier, key, value) -> carrier.put(key, value));
        return headers;
    }

    /** Adds the current trace context's W3C headers with {@code setter}, e.g. {@code HttpRequest.Builder::header}. */
    public static void injectCurrent(BiConsumer<String, String> setter) {
        currentHeaders().forEach(setter);
    }
}
