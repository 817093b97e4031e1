package io.actiongate.approver.web;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.FormFields;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.Promise;

/**
 * One request and its response on Jetty, with the security headers every answer carries: a strict
 * Content-Security-Policy (scripts and styles only from this origin, no inline script, no framing), no caching, no
 * referrer to other sites, no sniffing. Cookies, query and form parsing are Jetty's; a form body must arrive within
 * the body deadline and stay under 64 KiB and 64 fields.
 */
public final class Exchange {

    public static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
    private static final int MAX_FORM_BYTES = 64 * 1024;
    private static final int MAX_FORM_FIELDS = 64;

    /** A cookie's SameSite mode. */
    public enum SameSite { STRICT, LAX }

    private final Request request;
    private final Response response;
    private final Callback callback;
    /** Whether a read of the form began and did not end (408, 413): the connection cannot carry another request. */
    private boolean bodyCutShort;
    private final long bodyTimeoutMs;
    private Fields query;
    private Fields form;
    private boolean sent;
    private Runnable beforeSend;

    Exchange(Request request, Response response, Callback callback, long bodyTimeoutMs) {
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.bodyTimeoutMs = bodyTimeoutMs;
    }

    public String method() {
        return request.getMethod();
    }

    public String path() {
        String p = request.getHttpURI().getPath();
        return p == null ? "/" : p;
    }

    public String header(String name) {
        return request.getHeaders().get(name);
    }

    public String remote() {
        String r = Request.getRemoteAddr(request);
        return r == null ? "?" : r;
    }

    /** A query parameter (first value), decoded. */
    public String query(String name) {
        if (query == null) {
            try {
                query = Request.extractQueryParameters(request, StandardCharsets.UTF_8);
            } catch (RuntimeException e) {
                query = Fields.EMPTY; // a malformed query: every parameter is absent
            }
        }
        return query.getValue(name);
    }

    public String cookie(String name) {
        List<HttpCookie> cookies = Request.getCookies(request);
        for (HttpCookie c : cookies) {
            if (c.getName().equals(name)) {
                return c.getValue();
            }
        }
        return null;
    }

    /** The url-encoded form body (first value per name), read within the body deadline. */
    public Fields form() throws IOException {
        if (form == null) {
            String type = header("Content-Type");
            if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
                form = Fields.EMPTY;
                return form;
            }
            try {
                CompletableFuture<Fields> read = new CompletableFuture<>();
                FormFields.onFields(request, StandardCharsets.UTF_8, MAX_FORM_FIELDS, MAX_FORM_BYTES,
                        Promise.Invocable.toPromise(read));
                bodyCutShort = true;
                form = read.get(bodyTimeoutMs, TimeUnit.MILLISECONDS);
                bodyCutShort = false;
            } catch (TimeoutException e) {
                throw new BodyException(408, "the form did not arrive in time");
            } catch (ExecutionException e) {
                throw new BodyException(413, "the form is too large or malformed");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
        return form;
    }

    public String field(String name) throws IOException {
        return form().getValue(name);
    }

    /** A request body that was too slow, too large or malformed: answered with its status, nothing else done. */
    public static final class BodyException extends IOException {
        private static final long serialVersionUID = 1L;
        private final int status;

        BodyException(int status, String message) {
            super(message);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    /** Sets a {@code Path=/; HttpOnly; Secure} cookie (the {@code __Host-} prefix rules); maxAge -1 for a session. */
    public void setCookie(String name, String value, SameSite sameSite, long maxAgeSeconds) {
        HttpCookie.Builder b = HttpCookie.build(name, value).path("/").httpOnly(true).secure(true)
                .sameSite(sameSite == SameSite.STRICT ? HttpCookie.SameSite.STRICT : HttpCookie.SameSite.LAX);
        if (maxAgeSeconds >= 0) {
            b.maxAge(maxAgeSeconds);
        }
        Response.addCookie(response, b.build());
    }

    public void clearCookie(String name, SameSite sameSite) {
        setCookie(name, "", sameSite, 0);
    }

    private void securityHeaders() {
        HttpFields.Mutable h = response.getHeaders();
        h.put("Content-Security-Policy", CSP);
        h.put("X-Frame-Options", "DENY");
        h.put("X-Content-Type-Options", "nosniff");
        // not no-referrer: under it browsers send "Origin: null" on form posts, and the origin check needs the origin
        h.put("Referrer-Policy", "same-origin");
        h.put("Cross-Origin-Opener-Policy", "same-origin");
        h.put("Cross-Origin-Resource-Policy", "same-origin");
        h.put("Permissions-Policy", "publickey-credentials-get=(self), publickey-credentials-create=(self)");
        h.put(new HttpField(HttpHeader.CACHE_CONTROL, "no-store"));
    }

    /** Runs once just before the response is sent (the session cookie is sealed again then). */
    public void beforeSend(Runnable r) {
        beforeSend = r;
    }

    public boolean sent() {
        return sent;
    }

    public void send(int status, String contentType, byte[] body) throws IOException {
        if (sent) {
            throw new IllegalStateException("response already sent");
        }
        sent = true;
        Runnable hook = beforeSend;
        beforeSend = null;
        if (hook != null) {
            hook.run();
        }
        securityHeaders();
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        if (bodyCutShort) {
            // the form's read failed or is still pending: the connection ends after this answer, so it says so and
            // no client sends its next request on it (RFC 9112 9.6). A body never read (a refusal before the form)
            // is the HTTP server's: drained after the answer, or the answer says close (HttpSurface)
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        boolean head = method().equals("HEAD");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, (long) body.length);
        response.write(true, head ? ByteBuffer.allocate(0) : ByteBuffer.wrap(body), callback);
    }

    public void html(int status, String html) throws IOException {
        send(status, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
    }

    public void redirect(String location) throws IOException {
        response.getHeaders().put(HttpHeader.LOCATION, location);
        send(303, "text/plain; charset=utf-8", new byte[0]);
    }

    /** After the app: a request nothing answered is failed, so the connection never hangs. */
    void finish() {
        if (!sent) {
            sent = true;
            callback.failed(new IllegalStateException("no response"));
        }
    }
}
