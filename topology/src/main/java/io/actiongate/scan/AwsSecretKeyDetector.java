package io.actiongate.scan;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An AWS secret access key: 40 base64 chars assigned to a name such as {@code aws_secret_access_key},
 * {@code AWS_SECRET_KEY} or {@code SecretAccessKey}, in text or as a JSON member. A bare 40-char string is not
 * enough (too many innocent strings look like one).
 */
final class AwsSecretKeyDetector implements Detector {

    static final String ID = "aws_secret_access_key";

    private static final Pattern ASSIGNMENT = Pattern.compile(
            "(?i)(?<![A-Za-z0-9])(?:aws[_.\\-]?secret(?:[_.\\-]?access)?[_.\\-]?key|secret[_.\\-]?access[_.\\-]?key)"
                    + "[\"']?[ \\t]{0,8}+[:=][ \\t]{0,8}+[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])");
    private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9/+]{40}");
    private static final Pattern NOT_LOWER_ALPHANUMERIC = Pattern.compile("[^a-z0-9]");

    private static final Hints HINTS = Hints.anyOfIgnoringCase("secret");

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String description() {
        return "AWS secret access key (40 base64 chars) assigned to aws_secret_access_key / SecretAccessKey";
    }

    @Override
    public boolean matches(String value) {
        if (!HINTS.present(value)) {
            return false;
        }
        Matcher m = ASSIGNMENT.matcher(value);
        while (m.find()) {
            if (randomLooking(m.group(1))) {
                return true;
            }
        }
        return false;
    }

    /** Called for every string member of every scanned input: the cheap length test first, no regex compiled. */
    @Override
    public boolean matchesMember(String name, String value) {
        if (value.length() != 40 || !VALUE.matcher(value).matches()) {
            return false;
        }
        String n = NOT_LOWER_ALPHANUMERIC.matcher(name.toLowerCase(Locale.ROOT)).replaceAll("");
        boolean awsName = n.contains("awssecret") || n.endsWith("secretaccesskey");
        return awsName && randomLooking(value);
    }

    private static boolean randomLooking(String key) {
        return Entropy.bitsPerChar(key) >= Entropy.MIN_BITS_PER_CHAR;
    }
}
