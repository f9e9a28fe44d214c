package handofflab.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The paper's matrix scatter (Figs. 1-2) over p parts in one JVM; its send/receive baseline runs as processes in java/tests. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ScatterTest {
    private final List<DhtNode> nodes = new ArrayList<>();

    @AfterEach
    void close() {
        nodes.forEach(DhtNode::crash);
    }

    List<ScatterMain.Scatter> scatter(SparseMatrix matrix, int p, int blocking) throws Exception {
        List<InetSocketAddress> none = List.of(InetSocketAddress.createUnresolved("127.0.0.1", 0));
        nodes.addAll(DhtNode.inOneJvm(p, new DhtConfig(0, none, 2, 8, 16, 1 << 18, matrix.longestRow(), 6, 4, 5)));
        List<ScatterMain.Scatter> parts = new ArrayList<>();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (DhtNode node : nodes) {
            ScatterMain.Scatter s = new ScatterMain.Scatter(matrix, p, node.id(), blocking);
            parts.add(s);
            runs.add(CompletableFuture.runAsync(() -> {
                try {
                    s.overDht(node);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (CompletableFuture<Void> run : runs) {
            run.get();
        }
        return parts;
    }

    @Test
    void theMatrixIsTheSameInEveryProcessAndHasTheAskedShape() {
        SparseMatrix a = new SparseMatrix(991, 6027, 7), b = new SparseMatrix(991, 6027, 7);
        long total = 0;
        for (int i = 1; i <= a.rows; i++) {
            assertTrue(a.rowLength(i) >= 1);
            assertEquals(i, a.row(i)[0], "the diagonal comes first");
            assertTrue(java.util.Arrays.equals(a.row(i), b.row(i)));
            total += a.rowLength(i);
        }
        assertEquals(6027, total);
        assertThrows(IllegalArgumentException.class, () -> new SparseMatrix(10, 9, 1));
    }

    @Test
    void everyRowEndsAtItsProcessOnceAndProcessZeroKeepsOnlyItsOwn() throws Exception {
        SparseMatrix matrix = new SparseMatrix(2021, 7353, 3);
        List<ScatterMain.Scatter> parts = scatter(matrix, 3, 10);
        long held = 0;
        for (int k = 0; k < 3; k++) {
            assertEquals(0, parts.get(k).wrong, parts.get(k).firstWrong);
            held += nodes.get(k).localSize();
        }
        assertEquals(7353, held, "every non-zero is held once, somewhere");
        assertTrue(parts.get(0).barrier >= parts.get(0).completion && parts.get(0).completion >= parts.get(0).initiation);
        assertTrue(parts.get(0).read > 0 && parts.get(1).barrier == 0, "only process 0 scatters, so only it is timed");
    }

    /** The check is what makes a run's "exactly once" mean something: a value held twice, or lost, is counted. */
    @Test
    void theCheckFindsAValueHeldTwiceAndAValueLost() throws Exception {
        SparseMatrix matrix = new SparseMatrix(300, 900, 5);
        List<ScatterMain.Scatter> parts = scatter(matrix, 3, 7);
        LocalTable one = nodes.get(1).localTable();
        one.insert(4, 1, matrix.row(4));                      // row 4 lives at process 1: one of its values again
        ScatterMain.Scatter again = new ScatterMain.Scatter(matrix, 3, 1, 7);
        again.check(one);
        assertTrue(again.wrong > 0 && again.firstWrong.startsWith("row 4 has " + (matrix.rowLength(4) + 1) + " values"), again.firstWrong);
        LocalTable two = nodes.get(2).localTable();
        two.delete(5, 1, new int[2]);                         // row 5 lives at process 2: one value gone
        ScatterMain.Scatter lost = new ScatterMain.Scatter(matrix, 3, 2, 7);
        lost.check(two);
        assertTrue(lost.wrong > 0 && lost.firstWrong.startsWith("row 5 has " + (matrix.rowLength(5) - 1) + " values"), lost.firstWrong);
        assertEquals(0, parts.get(0).wrong);
    }
}
