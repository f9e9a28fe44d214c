package handofflab.labs.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The lab's public test: one thread gets back every connection it put (in any order). */
class StudentHandoffTest {

    @Test
    void oneThreadGetsBackEveryConnection() throws InterruptedException {
        StudentHandoff<Integer> h = new StudentHandoff<>(4);
        Set<Integer> got = new HashSet<>();
        for (int round = 0; round < 25; round++) {
            for (int i = 0; i < 4; i++) {
                h.put(round * 4 + i);
            }
            for (int i = 0; i < 4; i++) {
                got.add(h.take());
            }
        }
        assertEquals(100, got.size());
    }
}
