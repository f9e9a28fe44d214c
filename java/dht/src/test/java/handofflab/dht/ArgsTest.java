package handofflab.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The command-line options of the DHT's programs: each mistake is named, so that a main can print it with its usage. */
class ArgsTest {
    private static Args parse(String... args) {
        return new Args(args, Set.of("--L", "--peers", "--rate"), Set.of("--raw-put"));
    }

    @Test
    void valuesFlagsAndDefaultsAreRead() {
        Args a = parse("--L", "10", "--raw-put", "--rate", "0.5");
        assertEquals(10, a.integer("--L", 1));
        assertEquals(0.5, a.decimal("--rate", 1));
        assertTrue(a.flag("--raw-put"));
        assertEquals("x", a.text("--peers", "x"));
        assertEquals(7L, a.longInteger("--seed", 7));
    }

    @Test
    void eachMistakeIsNamed() {
        assertEquals("unknown option --l", assertThrows(IllegalArgumentException.class, () -> parse("--l", "3")).getMessage());
        assertEquals("--L needs a value", assertThrows(IllegalArgumentException.class, () -> parse("--L")).getMessage());
        assertEquals("--L needs a whole number, got 'ten'",
                assertThrows(IllegalArgumentException.class, () -> parse("--L", "ten").integer("--L", 1)).getMessage());
        assertEquals("--rate needs a number, got 'fast'",
                assertThrows(IllegalArgumentException.class, () -> parse("--rate", "fast").decimal("--rate", 1)).getMessage());
    }
}
