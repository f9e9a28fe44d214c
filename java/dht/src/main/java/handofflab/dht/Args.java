package handofflab.dht;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --name value} options of the DHT's command-line programs ({@link DhtMain},
 * {@link ScatterMain}, and the Hazelcast baseline's main): an unknown option, a missing value or a
 * value that is not a number is an {@link IllegalArgumentException} naming it, which each main
 * prints with its usage and exit code 2.
 */
public final class Args {
    private final Map<String, String> values = new HashMap<>();
    private final Set<String> flags;

    /** {@code options}: those that take a value; {@code flags}: those that stand alone. */
    public Args(String[] args, Set<String> options, Set<String> flags) {
        this.flags = new java.util.HashSet<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (flags.contains(a)) {
                this.flags.add(a);
            } else if (!options.contains(a)) {
                throw new IllegalArgumentException("unknown option " + a);
            } else if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a + " needs a value");
            } else {
                values.put(a, args[++i]);
            }
        }
    }

    public boolean flag(String name) {
        return flags.contains(name);
    }

    public String text(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }

    public int integer(String name, int otherwise) {
        return parse(name, otherwise, Integer::parseInt, "a whole number");
    }

    public long longInteger(String name, long otherwise) {
        return parse(name, otherwise, Long::parseLong, "a whole number");
    }

    public double decimal(String name, double otherwise) {
        return parse(name, otherwise, Double::parseDouble, "a number");
    }

    private <T> T parse(String name, T otherwise, java.util.function.Function<String, T> parser, String what) {
        String v = values.get(name);
        try {
            return v == null ? otherwise : parser.apply(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs " + what + ", got '" + v + "'");
        }
    }
}
