package handofflab.servers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The catalog's [[server]] designs for the tests, read from specs/catalog.toml and handed to
 * {@link Designs#use} in the format ./lab passes as -Dhandofflab.designs (catalog.py's
 * Server.java_entry): the tests list no design of their own.
 */
final class CatalogDesigns {
    private CatalogDesigns() {
    }

    static synchronized void load() {
        JsonNode root;
        try {
            root = new TomlMapper().readTree(Files.readString(Path.of("../../specs/catalog.toml")));  // from java/servers
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read specs/catalog.toml", e);
        }
        Map<String, JsonNode> handoffs = new HashMap<>();
        root.path("handoff").forEach(h -> handoffs.put(h.path("name").asText(), h));
        StringJoiner table = new StringJoiner(",");
        for (JsonNode s : root.path("server")) {
            String entry = s.path("name").asText() + "/" + s.path("java").asText() + "/" + s.path("threads").asText();
            JsonNode h = handoffs.get(s.path("handoff").asText());
            if (h != null && h.has("check")) {  // a kit handoff class carries its connections
                entry += "/" + h.path("java").asText() + "/" + h.path("check").path("sized_by").asText();
            }
            table.add(entry);
        }
        Designs.use(table.toString());
    }
}
