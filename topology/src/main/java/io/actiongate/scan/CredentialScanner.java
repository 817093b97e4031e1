package io.actiongate.scan;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds credential material in proposal text and JSON so that the gate can reject it ({@code CREDENTIAL_MATERIAL})
 * before anything is stored, approved or dispatched. Fail closed: a false positive rejects the proposal. Findings
 * and logs name the detector and the location, never the matched text. Immutable and thread-safe; see DESIGN.md.
 */
public final class CredentialScanner {

    /** Location reported by {@link #scan(String)}. */
    public static final String TEXT_LOCATION = "text";
    /** Detector id reported, fail closed, for an input too long to scan within the work bound. */
    public static final String OVERSIZED_DETECTOR = "input_too_large_to_scan";
    /**
     * Longest input scanned, in chars. Inputs are capped upstream (max_input_bytes, at most 256 KiB assumed); four
     * times that bounds the work on the stream thread, and anything longer is reported instead of scanned.
     */
    public static final int MAX_SCAN_CHARS = 1024 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(CredentialScanner.class);
    private static final int MAX_LOCATION_CHARS = 256;
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final List<Detector> detectors;

    private CredentialScanner(List<Detector> detectors) {
        this.detectors = List.copyOf(detectors);
    }

    /** A scanner with every built-in detector. */
    public static CredentialScanner defaults() {
        return new CredentialScanner(BuiltInDetectors.all());
    }

    /**
     * A scanner for what actiongate writes: every built-in detector plus those for base64 content, local paths and
     * presigned URLs (not applied to proposal inputs, where such values may be legitimate).
     */
    public static CredentialScanner forOutputs() {
        // the specific output rules first, so a signed URL is reported as one; the generic blob rule last
        List<Detector> all = new java.util.ArrayList<>(OutputDetectors.specific());
        all.addAll(BuiltInDetectors.all());
        all.addAll(OutputDetectors.generic());
        return new CredentialScanner(all);
    }

    /** A scanner with the given detectors, tried in order (for tests and custom deployments). */
    public static CredentialScanner of(List<Detector> detectors) {
        Objects.requireNonNull(detectors, "detectors");
        return new CredentialScanner(detectors);
    }

    /** The detectors, in the order they are tried. */
    public List<Detector> detectors() {
        return detectors;
    }

    /**
     * Scans free text (a summary, a header, a non-JSON input). Returns the first detector that fires, with location
     * {@value #TEXT_LOCATION}; empty for {@code null} or clean text.
     */
    public Optional<Finding> scan(String text) {
        if (text == null) {
            return Optional.empty();
        }
        if (text.length() > MAX_SCAN_CHARS) {
            return report(new Finding(OVERSIZED_DETECTOR, TEXT_LOCATION));
        }
        return firstMatch(text).map(id -> new Finding(id, TEXT_LOCATION)).flatMap(CredentialScanner::report);
    }

    /**
     * Scans a JSON document: every string value and every member name is scanned like text, and every member with a
     * string value is also checked as a name/value pair (so {@code "password": "hunter2Xq9!zP4r#"} fires). Nothing is
     * decoded beyond JSON itself (no base64, no URL decoding). Duplicate member names are all seen, because the
     * document is streamed rather than bound to a tree. If the text is not valid JSON it is scanned with
     * {@link #scan(String)} instead. Locations are JSON pointers; see {@link Finding#location()}.
     */
    public Optional<Finding> scanJson(String json) {
        if (json == null) {
            return Optional.empty();
        }
        if (json.length() > MAX_SCAN_CHARS) {
            return report(new Finding(OVERSIZED_DETECTOR, TEXT_LOCATION));
        }
        Optional<Finding> found;
        try {
            found = walk(json);
        } catch (IOException notJson) {
            // never log the exception: parser messages quote the input
            LOG.debug("credential scan: input is not JSON, scanning it as text");
            return scan(json);
        }
        return found.flatMap(CredentialScanner::report);
    }

    /**
     * Scans {@code json} exactly as {@link #scanJson(String)} does (same detectors, same order, same findings and
     * locations) but walks {@code parsed}, a strict parse of that same text, instead of parsing it again: the gate
     * has parsed the input for its digest already. {@code parsed} must come from a parser that rejects duplicate
     * member names (as {@code Jcs.parse} does), so that the tree holds every member, in document order; {@code json}
     * only bounds the work ({@link #MAX_SCAN_CHARS}). With no tree, the text is scanned as by
     * {@link #scanJson(String)}.
     */
    public Optional<Finding> scanJson(String json, JsonNode parsed) {
        if (parsed == null || json == null) {
            return scanJson(json);
        }
        if (json.length() > MAX_SCAN_CHARS) {
            return report(new Finding(OVERSIZED_DETECTOR, TEXT_LOCATION));
        }
        return visit(parsed, new JsonPointer()).flatMap(CredentialScanner::report);
    }

    /** The tree counterpart of {@link #walk}: the same pointer moves, in the order the parser's tokens come. */
    private Optional<Finding> visit(JsonNode node, JsonPointer path) {
        if (node.isObject()) {
            path.enterObject();
            for (Map.Entry<String, JsonNode> member : node.properties()) {
                String name = member.getKey();
                Optional<String> hit = firstMatch(name);
                if (hit.isPresent()) {
                    return Optional.of(new Finding(hit.get(), path.memberNameLocation()));
                }
                path.member(name);
                Optional<Finding> found = visit(member.getValue(), path);
                if (found.isPresent()) {
                    return found;
                }
            }
            path.leave();
        } else if (node.isArray()) {
            path.enterArray();
            for (JsonNode element : node) {
                Optional<Finding> found = visit(element, path);
                if (found.isPresent()) {
                    return found;
                }
            }
            path.leave();
        } else if (node.isTextual()) {
            path.arrayElement();
            String value = node.textValue();
            Optional<String> hit = firstMatch(value);
            String name = path.memberName();
            if (hit.isEmpty() && name != null) {
                hit = firstMemberMatch(name, value);
            }
            if (hit.isPresent()) {
                return Optional.of(new Finding(hit.get(), truncate(path.pointer())));
            }
        } else {
            path.arrayElement();
        }
        return Optional.empty();
    }

    private Optional<Finding> walk(String json) throws IOException {
        JsonPointer path = new JsonPointer();
        try (JsonParser p = JSON.createParser(json)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                switch (t) {
                    case START_OBJECT -> path.enterObject();
                    case START_ARRAY -> path.enterArray();
                    case END_OBJECT, END_ARRAY -> path.leave();
                    case FIELD_NAME -> {
                        String name = p.currentName();
                        Optional<String> hit = firstMatch(name);
                        if (hit.isPresent()) {
                            return Optional.of(new Finding(hit.get(), path.memberNameLocation()));
                        }
                        path.member(name);
                    }
                    case VALUE_STRING -> {
                        path.arrayElement();
                        String value = p.getText();
                        Optional<String> hit = firstMatch(value);
                        String name = path.memberName();
                        if (hit.isEmpty() && name != null) {
                            hit = firstMemberMatch(name, value);
                        }
                        if (hit.isPresent()) {
                            return Optional.of(new Finding(hit.get(), truncate(path.pointer())));
                        }
                    }
                    default -> path.arrayElement();
                }
            }
        }
        return Optional.empty();
    }

    private Optional<String> firstMatch(String value) {
        for (Detector d : detectors) {
            if (d.matches(value)) {
                return Optional.of(d.id());
            }
        }
        return Optional.empty();
    }

    private Optional<String> firstMemberMatch(String name, String value) {
        for (Detector d : detectors) {
            if (d.matchesMember(name, value)) {
                return Optional.of(d.id());
            }
        }
        return Optional.empty();
    }

    private static String truncate(String location) {
        return location.length() <= MAX_LOCATION_CHARS ? location
                : location.substring(0, MAX_LOCATION_CHARS) + "...";
    }

    private static Optional<Finding> report(Finding finding) {
        LOG.debug("credential scan: detector {} fired at {}", finding.detector(), finding.location());
        return Optional.of(finding);
    }

    /** The JSON pointer of the token being read. Only names already scanned clean ever enter it. */
    private static final class JsonPointer {

        /** One open container: the member name or array index of the current child, and children seen so far. */
        private static final class Frame {
            final boolean array;
            String segment;
            String name;
            int children = -1;

            Frame(boolean array) {
                this.array = array;
            }
        }

        private final List<Frame> frames = new ArrayList<>();

        void enterObject() {
            arrayElement();
            frames.add(new Frame(false));
        }

        void enterArray() {
            arrayElement();
            frames.add(new Frame(true));
        }

        void leave() {
            frames.remove(frames.size() - 1);
        }

        /** A value starts: inside an array it is the next element. */
        void arrayElement() {
            if (!frames.isEmpty()) {
                Frame top = frames.get(frames.size() - 1);
                if (top.array) {
                    top.children++;
                    top.segment = Integer.toString(top.children);
                }
            }
        }

        void member(String name) {
            Frame top = frames.get(frames.size() - 1);
            top.children++;
            top.name = name;
            top.segment = name.replace("~", "~0").replace("/", "~1");
        }

        /**
         * The member name the current string belongs to: its own member's name, or for an element of an array held
         * by a member (e.g. {@code "passwords": ["..."]}), that member's name. {@code null} when there is none.
         */
        String memberName() {
            for (int i = frames.size() - 1; i >= 0; i--) {
                Frame f = frames.get(i);
                if (!f.array) {
                    return f.name;
                }
            }
            return null;
        }

        String pointer() {
            return pointer(frames.size());
        }

        /** The object holding the member name being read, and the name's ordinal, without the name itself. */
        String memberNameLocation() {
            Frame top = frames.get(frames.size() - 1);
            return truncate(pointer(frames.size() - 1)) + "#name[" + (top.children + 1) + "]";
        }

        private String pointer(int depth) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < depth; i++) {
                sb.append('/').append(frames.get(i).segment);
            }
            return sb.toString();
        }
    }
}
