package io.actiongate.approver.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.samskivert.mustache.Mustache;
import com.samskivert.mustache.Template;

/** The server-rendered pages (Mustache templates on the classpath; every value HTML-escaped). */
public final class Pages {

    private static final String ROOT = "/io/actiongate/approver/templates/";

    private final Mustache.Compiler compiler = Mustache.compiler().escapeHTML(true).defaultValue("")
            .withLoader(name -> reader(name));
    private final Map<String, Template> templates = new ConcurrentHashMap<>();

    public String render(String name, Object context) {
        return templates.computeIfAbsent(name, n -> compiler.compile(reader(n))).execute(context);
    }

    private static Reader reader(String name) {
        InputStream in = Pages.class.getResourceAsStream(ROOT + name + ".mustache");
        if (in == null) {
            throw new UncheckedIOException(new IOException("no template " + name));
        }
        try (InputStream stream = in) {
            return new StringReader(new String(stream.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A static file under {@code static/}, or null. */
    public static byte[] staticFile(String name) {
        if (!name.matches("[a-z]+\\.(js|css)")) {
            return null;
        }
        try (InputStream in = Pages.class.getResourceAsStream("/io/actiongate/approver/static/" + name)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

}
