package io.actiongate.connector.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * An argument vector split into positionals and flags. Which flags are valid (and which take a value) depends
 * on the positionals seen so far ({@code tables}), since {@code -f} means "follow" after {@code logs} and
 * "filename" after {@code apply}. The first flag the table does not know stops parsing: without knowing whether
 * it takes a value, nothing after it can be read safely, so the caller must fail closed.
 */
record Argv(List<String> positionals, Map<String, String> flags, String unknownFlag) {

    boolean has(String flagName) {
        return flags.containsKey(flagName);
    }

    /** A boolean flag that is present and not explicitly {@code =false}. */
    boolean on(String flagName) {
        String value = flags.get(flagName);
        return value != null && !value.equalsIgnoreCase("false");
    }

    String positional(int index) {
        return index < positionals.size() ? positionals.get(index) : null;
    }

    static Argv parse(List<String> args, Function<List<String>, FlagTable> tables) {
        List<String> positionals = new ArrayList<>();
        Map<String, String> flags = new HashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--")) {
                positionals.addAll(args.subList(i + 1, args.size()));
                break;
            }
            if (!arg.startsWith("-") || arg.equals("-")) {
                positionals.add(arg);
                continue;
            }
            FlagTable table = tables.apply(positionals);
            int eq = arg.indexOf('=');
            String spelling = eq > 0 ? arg.substring(0, eq) : arg;
            var flag = table.find(spelling);
            if (flag.isEmpty() && !arg.startsWith("--") && arg.length() > 2 && eq < 0) {
                // -nprod (attached value) or -it (grouped booleans)
                var first = table.find(arg.substring(0, 2));
                if (first.isPresent() && first.get().takesValue()) {
                    flags.put(first.get().name(), arg.substring(2));
                    continue;
                }
                boolean allBoolean = true;
                for (char c : arg.substring(1).toCharArray()) {
                    var each = table.find("-" + c);
                    if (each.isEmpty() || each.get().takesValue()) {
                        allBoolean = false;
                        break;
                    }
                }
                if (allBoolean) {
                    for (char c : arg.substring(1).toCharArray()) {
                        flags.put(table.find("-" + c).orElseThrow().name(), "true");
                    }
                    continue;
                }
            }
            if (flag.isEmpty()) {
                return new Argv(List.copyOf(positionals), Map.copyOf(flags), spelling);
            }
            if (eq > 0) {
                flags.put(flag.get().name(), arg.substring(eq + 1));
            } else if (flag.get().takesValue()) {
                if (i + 1 >= args.size()) {
                    return new Argv(List.copyOf(positionals), Map.copyOf(flags), spelling);
                }
                flags.put(flag.get().name(), args.get(++i));
            } else {
                flags.put(flag.get().name(), "true");
            }
        }
        return new Argv(List.copyOf(positionals), Map.copyOf(flags), null);
    }
}
