package handofflab.calendar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every collection list in specs/catalog.toml (the buggy ones too) behaves as a set with one
 * thread: they are wrong only under concurrency, which is why Lincheck checks them
 * (`./lab check java LazyListNoValidate`). The correct ones also keep every id under a load.
 */
class CollectionListTest {

    static List<String> kinds(boolean correctOnly) throws Exception {
        JsonNode catalog = new TomlMapper().readTree(Paths.get("../../specs/catalog.toml").toFile());  // surefire runs in java/calendar
        List<String> kinds = new ArrayList<>();
        for (JsonNode v : catalog.get("variant")) {
            if ("collection".equals(v.path("kind").asText()) && (!correctOnly || v.path("bug").asText().isEmpty())) {
                kinds.add(v.get("java").asText());
            }
        }
        return kinds;
    }

    static List<String> all() throws Exception {
        return kinds(false);
    }

    static List<String> correct() throws Exception {
        return kinds(true);
    }

    @Test
    void theCatalogListsTheThreeKindsAndTheirSlips() throws Exception {
        assertEquals(List.of("LazyList", "LockFreeList", "SkipListSet"), correct());
        assertEquals(5, all().size());
    }

    @ParameterizedTest
    @MethodSource("all")
    void oneThreadSeesASet(String kind) {
        CollectionList list = CollectionList.create(kind);
        TreeSet<Integer> model = new TreeSet<>();
        java.util.Random random = new java.util.Random(62);
        for (int i = 0; i < 2_000; i++) {
            int id = random.nextInt(40) - 20;  // negative ids too: the sentinels are the int extremes
            switch (random.nextInt(3)) {
                case 0: assertEquals(model.add(id), list.add(id), "add(" + id + ")"); break;
                case 1: assertEquals(model.remove(id), list.remove(id), "remove(" + id + ")"); break;
                default: assertEquals(model.contains(id), list.contains(id), "contains(" + id + ")");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("correct")
    void fourThreadsAddAndRemoveAndNothingIsLost(String kind) throws InterruptedException {
        CollectionList list = CollectionList.create(kind);
        int threads = 4, each = 2_000;
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int first = t * each;
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int id = first; id < first + each; id++) {  // interleaved ids: neighbours change at once
                    if (!list.add((id % threads) * each + id / threads)) {
                        wrong.add("add " + id);
                    }
                }
                for (int id = first; id < first + each; id += 2) {
                    int key = (id % threads) * each + id / threads;
                    if (!list.remove(key)) {
                        wrong.add("remove " + key);
                    }
                }
            });
            workers.add(w);
            w.start();
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertTrue(wrong.isEmpty(), "refused: " + wrong);
        for (int t = 0; t < threads; t++) {
            for (int id = t * each; id < (t + 1) * each; id++) {
                int key = (id % threads) * each + id / threads;
                assertEquals(id % 2 == 1, list.contains(key), "id " + key);
            }
        }
    }

    @Test
    void anUnknownKindIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CollectionList.create("Nope"));
        assertTrue(e.getMessage().contains("'Nope'"));
        assertFalse(e.getMessage().isEmpty());
    }
}
