package handofflab.checks;

import static handofflab.checks.LincheckCheck.a;

import handofflab.dht.LocalTable;
import handofflab.dht.SerialTable;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;

/**
 * Lincheck's model checker over the DHT's local table (java/dht), the one the service thread and
 * the process's own user thread share: every outcome must be one the table gives when its
 * operations run one at a time (linearizability). A value lost shows as a find that returns fewer
 * values than were inserted before it.
 *
 * <p>The table starts at 4 slots with buckets of one value, and doubles when an insert would take
 * more than three of them. The kit gives Lincheck the scenario where a find meets that doubling, then random scenarios
 * over three keys, so that a verdict does not hang on the random draw.
 */
public final class TableLincheck {
    private static volatile String subject;  // Lincheck builds UnderTest itself: the run sets this first
    static final int WIDTH = 1, BUCKET = 1, SLOTS = 4, MAX_SLOTS = 64, N = 4;

    private TableLincheck() {
    }

    /** The table under test: Lincheck creates one per interleaving it tries. */
    @Param(name = "key", gen = IntGen.class, conf = "1:3")
    public static final class UnderTest {
        private final LocalTable table = LocalTable.create(subject, new SerialTable(WIDTH, BUCKET, SLOTS, MAX_SLOTS));

        /** One value, the key itself; returns how many were stored. */
        @Operation
        public int insert(@Param(name = "key") int key) {
            return table.insert(key, 1, new int[] {key});
        }

        /** Up to N of the key's values; returns how many, or -1 if one is not the key's. */
        @Operation
        public int find(@Param(name = "key") int key) {
            int[] out = new int[N];
            return checked(key, table.find(key, N, out), out);
        }

        @Operation
        public int delete(@Param(name = "key") int key) {
            int[] out = new int[N];
            return checked(key, table.delete(key, N, out), out);
        }

        private static int checked(int key, int got, int[] out) {
            for (int i = 0; i < got; i++) {
                if (out[i] != key) {
                    return -1;
                }
            }
            return got;
        }
    }

    /** The sequential specification: how many values each key has. */
    public static final class SequentialTable {
        private final Map<Integer, Integer> count = new HashMap<>();

        public int insert(int key) {
            count.merge(key, 1, Integer::sum);
            return 1;
        }

        public int find(int key) {
            return Math.min(N, count.getOrDefault(key, 0));
        }

        public int delete(int key) {
            int got = find(key);
            count.put(key, count.getOrDefault(key, 0) - got);
            return got;
        }
    }

    public static Verdict run(String kind) throws Exception {
        subject = kind;
        LocalTable.create(kind, new SerialTable(WIDTH, BUCKET, SLOTS, MAX_SLOTS));  // a bad name fails here, clearly
        Verdict v = new Verdict("lincheck", kind);
        Method insert = UnderTest.class.getMethod("insert", int.class);
        Method find = UnderTest.class.getMethod("find", int.class);
        ModelCheckingOptions options = LincheckCheck.randomScenarios(SequentialTable.class);  // and the one below
        // Keys 1, 2 and 3 take three of the 4 slots; one thread inserts a second value of key 1,
        // which doubles the table, while the other finds key 2: the find must see its value.
        options.addCustomScenario(new ExecutionScenario(
                List.of(a(insert, 1), a(insert, 2), a(insert, 3)),
                Arrays.asList(List.of(a(insert, 1)), List.of(a(find, 2))),
                List.of(), null));
        return LincheckCheck.check(v, options, UnderTest.class, "an outcome no table gives when its operations run one at a time");
    }
}
