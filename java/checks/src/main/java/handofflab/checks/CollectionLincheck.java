package handofflab.checks;

import static handofflab.checks.LincheckCheck.a;

import handofflab.calendar.CollectionList;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;

/**
 * Lincheck's model checker over one of the calendar store's collection lists: every outcome
 * must be one a set gives when its operations run one at a time (linearizability). A lost
 * entity shows as an add that said true followed by a contains that says false.
 *
 * <p>The kit gives Lincheck the scenario where the two classic slips lose an entity (an add
 * linking after a node a concurrent remove unlinks), then random scenarios over three ids,
 * so that a verdict does not hang on the random draw.
 */
public final class CollectionLincheck {
    private static volatile String subject;  // Lincheck builds UnderTest itself: the run sets this first

    private CollectionLincheck() {
    }

    /** The list under test: Lincheck creates one per interleaving it tries. */
    @Param(name = "id", gen = IntGen.class, conf = "1:3")
    public static final class UnderTest {
        private final CollectionList list = CollectionList.create(subject);

        @Operation
        public boolean add(@Param(name = "id") int id) {
            return list.add(id);
        }

        @Operation
        public boolean remove(@Param(name = "id") int id) {
            return list.remove(id);
        }

        @Operation
        public boolean contains(@Param(name = "id") int id) {
            return list.contains(id);
        }
    }

    /** The sequential specification: a set. */
    public static final class SequentialSet {
        private final Set<Integer> ids = new HashSet<>();

        public boolean add(int id) {
            return ids.add(id);
        }

        public boolean remove(int id) {
            return ids.remove(id);
        }

        public boolean contains(int id) {
            return ids.contains(id);
        }
    }

    public static Verdict run(String kind) throws Exception {
        subject = kind;
        Verdict v = new Verdict("lincheck", kind);
        Method add = UnderTest.class.getMethod("add", int.class);
        Method remove = UnderTest.class.getMethod("remove", int.class);
        Method contains = UnderTest.class.getMethod("contains", int.class);
        ModelCheckingOptions options = LincheckCheck.randomScenarios(SequentialSet.class);  // and the one below
        // Ids 1 and 3 are in the list; one thread adds 2 between them while another removes 1, the
        // node 2 is linked after; then a contains(2) must say true.
        options.addCustomScenario(new ExecutionScenario(
                List.of(a(add, 1), a(add, 3)),
                Arrays.asList(List.of(a(add, 2)), List.of(a(remove, 1))),
                List.of(a(contains, 2)), null));
        return LincheckCheck.check(v, options, UnderTest.class, "an outcome no set gives when its operations run one at a time");
    }
}
