package io.actiongate.scan;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Second-stage checks on regex candidates, so that shapes alone do not fire. All bounded in work. */
final class TokenChecks {

    /** A JWT header is small; anything longer is not worth decoding. */
    private static final int MAX_JWT_HEADER_CHARS = 2048;
    private static final int MAX_BASIC_CHARS = 4096;
    private static final ObjectMapper JSON = new ObjectMapper();

    private TokenChecks() {
    }

    /** {@code header.payload.signature}: the header decodes (base64url) to a JSON object with an "alg" member. */
    static boolean isJwt(String token) {
        int dot = token.indexOf('.');
        if (dot <= 0 || dot > MAX_JWT_HEADER_CHARS) {
            return false;
        }
        byte[] header;
        try {
            header = Base64.getUrlDecoder().decode(token.substring(0, dot));
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
        try (JsonParser p = JSON.createParser(header)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                if ("alg".equals(p.currentName())) {
                    return true;
                }
                p.nextToken();
                p.skipChildren();
            }
            return false;
        } catch (java.io.IOException notJson) {
            return false;
        }
    }

    /** {@code Basic} credentials: base64 of printable UTF-8 {@code user:password} with a non-empty password. */
    static boolean isBasicCredentials(String encoded) {
        if (encoded.length() > MAX_BASIC_CHARS) {
            return false;
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(encoded);
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
        String decoded;
        try {
            decoded = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException notText) {
            return false;
        }
        int colon = decoded.indexOf(':');
        if (colon < 0 || colon == decoded.length() - 1) {
            return false;
        }
        return decoded.codePoints().noneMatch(Character::isISOControl);
    }

    /** A bearer token: long enough, letters and digits, and not a repeated pattern. */
    static boolean isBearerToken(String token) {
        return token.length() >= 16 && Entropy.hasLetterAndDigit(token) && Entropy.bitsPerChar(token) >= 3.0;
    }

    /** OpenAI-style {@code sk-...} body: mixed case with digits and random-looking. */
    static boolean isRandomMixedCase(String body) {
        return Entropy.hasUpperLowerAndDigit(body) && Entropy.bitsPerChar(body) >= Entropy.MIN_BITS_PER_CHAR;
    }

    /** The password part of {@code scheme://user:password@host}, unless it is an obvious placeholder. */
    static boolean isUrlPassword(String password) {
        return !Placeholders.isPlaceholder(password);
    }
}
