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

    @Test
    void aMatrixMarketFileIsReadAsStoredAndScatteredEmptyRowsIncluded(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path file = dir.resolve("tiny.mtx");
        java.nio.file.Files.writeString(file, "%%MatrixMarket matrix coordinate real symmetric\n% a comment\n"
                + "5 5 6\n1 1 4.0\n2 1 -1.5\n2 2 4.0\n4 4 2.5e-1\n5 4 1\n5 5 3\n");
        SparseMatrix matrix = SparseMatrix.read(file);
        assertEquals(5, matrix.rows);
        assertEquals(6, matrix.nonzeros, "the entries as stored: one triangle of the symmetric matrix");
        assertEquals(0, matrix.rowLength(3), "row 3 has no entry");
        assertTrue(java.util.Arrays.equals(new int[] {1, Float.floatToIntBits(-1.5f), 2, Float.floatToIntBits(4f)}, matrix.row(2)));
        List<ScatterMain.Scatter> parts = scatter(matrix, 3, 2);
        for (ScatterMain.Scatter s : parts) {
            assertEquals(0, s.wrong, s.firstWrong);
        }
        assertEquals(List.of(0L, 2L, 4L), nodes.stream().map(DhtNode::localSize).collect(java.util.stream.Collectors.toList()), "rows 1 and 4 at process 1, 2 and 5 at 2, empty row 3 at 0");
    }

    @Test
    void aFileThatIsNotAMatrixSaysWhatIsWrong(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String[][] cases = {
            {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "is not a MatrixMarket coordinate file"},
            {"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "is not a MatrixMarket coordinate file"},
            {"%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n", "ends after 2 of its 3 entries"},
            {"%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", "is outside the 2 x 2 matrix"},
            {"%%MatrixMarket matrix coordinate real general\ntwo 2 1\n", "the size line (rows, columns, entries) should be 3 whole numbers"},
            {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 big\n", "whose value is not a number"},
        };
        for (String[] c : cases) {
            java.nio.file.Path file = dir.resolve("bad.mtx");
            java.nio.file.Files.writeString(file, c[0]);
            String why = assertThrows(IllegalArgumentException.class, () -> SparseMatrix.read(file)).getMessage();
            assertTrue(why.contains(c[1]) && why.contains("bad.mtx"), why);
        }
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
