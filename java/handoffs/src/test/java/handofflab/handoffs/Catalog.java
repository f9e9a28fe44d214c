package handofflab.handoffs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The catalog's variants that have a Java class, each with its check profile, read from
 * specs/catalog.toml: the Java tests take their list of classes from there, not from a
 * list of their own. (./lab and the grader send the same profile as an argument.)
 */
final class Catalog {
    /** A catalogued variant with a Java class. */
    static final class Variant {
        final String name, javaClass;
        final boolean correct;
        final CheckProfile profile;

        Variant(String name, String javaClass, boolean correct, CheckProfile profile) {
            this.name = name;
            this.javaClass = javaClass;
            this.correct = correct;
            this.profile = profile;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private Catalog() {
    }

    static List<Variant> javaVariants() {
        Path file = Paths.get("../../specs/catalog.toml");  // surefire runs in java/handoffs
        JsonNode root;
        try {
            root = new TomlMapper().readTree(Files.readString(file));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file.toAbsolutePath() + ": " + e, e);
        }
        Map<String, JsonNode> checks = new LinkedHashMap<>();
        for (JsonNode h : root.path("handoff")) {
            checks.put(h.path("name").asText(), h.path("check"));
        }
        List<Variant> out = new ArrayList<>();
        for (JsonNode v : root.path("variant")) {
            if (!v.hasNonNull("java") || v.hasNonNull("kind")) {
                continue;  // a handoff's class: a class of another kind (a store, a queue, ...) has a `kind`
            }
            Map<String, String> keys = new LinkedHashMap<>();
            put(keys, checks.get(v.path("handoff").asText()));
            put(keys, v.path("check"));  // a variant's own keys override its handoff's
            StringBuilder arg = new StringBuilder();
            keys.forEach((k, value) -> arg.append(arg.length() == 0 ? "" : ";").append(k).append('=').append(value));
            out.add(new Variant(v.path("name").asText(), v.path("java").asText(), v.path("bug").asText("").isEmpty(),
                    CheckProfile.parse(arg.toString())));
        }
        return out;
    }

    private static void put(Map<String, String> keys, JsonNode table) {
        for (Iterator<Map.Entry<String, JsonNode>> it = table.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            List<String> items = new ArrayList<>();
            if (e.getValue().isArray()) {
                e.getValue().forEach(n -> items.add(n.asText()));
            }
            keys.put(e.getKey(), e.getValue().isArray() ? String.join("/", items) : e.getValue().asText());
        }
    }
}
