package io.actiongate.connector.internal.http;

import io.actiongate.connector.spi.ErrorCodes;

import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.net.UnknownHostException;

/**
 * Why an HTTP exchange threw, and whether any byte of the request can have reached the provider.
 *
 * <p>From {@link HttpCaller}, a {@link ConnectException} or {@link HttpConnectTimeoutException} means the TCP
 * connection (or the proxy's tunnel) for this exchange never came up, so the request was never written; an
 * unresolvable host is the same. Everything else (response timeout, reset, EOF, interruption) happens after the request may have been
 * written, so nobody can say whether the provider acted.
 */
public record SendFailure(boolean requestMaybeSent, String errorCode, String detail) {

    public static SendFailure of(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof HttpConnectTimeoutException) {
                return new SendFailure(false, ErrorCodes.CONNECT_TIMEOUT, "connect timed out");
            }
            if (t instanceof HttpTimeoutException) {
                return new SendFailure(true, ErrorCodes.RESPONSE_TIMEOUT, "no response within the response timeout");
            }
            if (t instanceof ConnectException) {
                return new SendFailure(false, ErrorCodes.CONNECTION_REFUSED, "connection refused");
            }
            if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
                return new SendFailure(false, ErrorCodes.CONNECTION_REFUSED, "host not resolvable");
            }
            if (t.getCause() == t) {
                break;
            }
        }
        if (failure instanceof InterruptedException) {
            return new SendFailure(true, ErrorCodes.CONNECTION_LOST, "interrupted while waiting for the response");
        }
        return new SendFailure(true, ErrorCodes.CONNECTION_LOST,
                "connection failed after the request may have been sent (" + failure.getClass().getSimpleName() + ")");
    }
}
