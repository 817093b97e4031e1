package io.actiongate.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The relative links of Markdown pages: each must name an existing file or directory, and a {@code #fragment} into a
 * Markdown page one of its headings (as GitHub derives their anchors) or an explicit {@code <a id/name>}.
 */
final class DocLinks {

    /** {@code [text](target)} and {@code ![alt](target)}; the target ends at the first space or ')'. */
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
    private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");

    private DocLinks() {
    }

    /**
     * Every broken link of {@code pages}, as {@code page:line: target (why)}.
     *
     * @param pending pages (relative to {@code root}) that other work adds: a link to the page itself may dangle,
     *                a link into one of its anchors may not
     */
    static List<String> broken(Path root, List<Path> pages, Set<String> pending) {
        List<String> problems = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        for (Path page : pages) {
            List<String> lines = read(page);
            boolean fence = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.stripLeading().startsWith("```")) {
                    fence = !fence;
                    continue;
                }
                if (fence) {
                    continue;
                }
                Matcher link = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
                while (link.find()) {
                    String target = link.group(1);
                    if (target.matches("(?i)^[a-z][a-z0-9+.-]*:.*")) {
                        continue; // https:, mailto:, ...
                    }
                    String why = check(root, page, target, pending, anchors);
                    if (why != null) {
                        problems.add(root.relativize(page) + ":" + (i + 1) + ": " + target + " (" + why + ")");
                    }
                }
            }
        }
        return problems;
    }

    private static String check(Path root, Path page, String target, Set<String> pending,
                                Map<Path, Set<String>> anchors) {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!resolved.startsWith(root)) {
            return "outside the repository";
        }
        if (!Files.exists(resolved)) {
            String relative = root.relativize(resolved).toString().replace('\\', '/');
            if (pending.contains(relative)) {
                return fragment == null ? null : "an anchor into a page that does not exist yet";
            }
            return "no such file";
        }
        if (fragment == null || fragment.isEmpty() || !resolved.toString().endsWith(".md")) {
            return null;
        }
        Set<String> known = anchors.computeIfAbsent(resolved, DocLinks::anchors);
        return known.contains(fragment) ? null : "no heading with anchor #" + fragment;
    }

    /** The anchors GitHub gives a page's headings (duplicates numbered -1, -2, ...), and explicit HTML anchors. */
    static Set<String> anchors(Path page) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fence = false;
        for (String line : read(page)) {
            if (line.stripLeading().startsWith("```")) {
                fence = !fence;
                continue;
            }
            if (fence) {
                continue;
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) {
                anchors.add(html.group(1));
            }
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(1));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
        }
        return anchors;
    }

    /** GitHub's heading anchor: lower case, punctuation dropped (not '-' or '_'), each space a '-'. */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1"); // a link's text only
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    private static List<String> read(Path page) {
        try {
            return Files.readAllLines(page, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
