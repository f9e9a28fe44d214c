package handofflab.dht;

import java.util.SplittableRandom;

/**
 * A square sparse matrix in compressed rows, made up by the kit: the paper's Table 1 scatters
 * MatrixMarket matrices, which the kit may not download, so it makes one of the same size and number
 * of non-zeros instead. The same arguments give the same matrix in every process, which is how each
 * process knows, after a scatter, exactly which values it must hold.
 *
 * <p>Every row has its diagonal; the other non-zeros fall on rows and columns drawn uniformly, so row
 * lengths spread around the mean as a Poisson count does (real matrices are more regular, banded, or
 * have a few dense rows; the scatter's cost per value depends on the row lengths, not the columns).
 * Rows are numbered 1..rows, as in the paper's Fig. 2. A value is a pair of ints, the paper's
 * {@code batch}: the column and the bits of a float.
 */
public final class SparseMatrix {
    public final int rows;
    public final int nonzeros;
    private final int[] start;   // row i's values are pairs start[i-1] .. start[i]-1
    private final int[] pairs;   // (column, float bits) per non-zero

    public SparseMatrix(int rows, int nonzeros, long seed) {
        if (rows < 1 || nonzeros < rows) {
            throw new IllegalArgumentException("a matrix needs rows >= 1 and at least one non-zero per row (its diagonal); got "
                    + rows + " rows and " + nonzeros + " non-zeros");
        }
        this.rows = rows;
        this.nonzeros = nonzeros;
        SplittableRandom random = new SplittableRandom(seed);
        int[] length = new int[rows];
        java.util.Arrays.fill(length, 1);
        for (int k = rows; k < nonzeros; k++) {
            length[random.nextInt(rows)]++;
        }
        start = new int[rows + 1];
        for (int i = 0; i < rows; i++) {
            start[i + 1] = start[i] + length[i];
        }
        pairs = new int[2 * nonzeros];
        for (int i = 0; i < rows; i++) {
            for (int k = start[i]; k < start[i + 1]; k++) {
                pairs[2 * k] = k == start[i] ? i + 1 : 1 + random.nextInt(rows);   // the diagonal first
                pairs[2 * k + 1] = Float.floatToIntBits((float) random.nextDouble(-1, 1));
            }
        }
    }

    /** Non-zeros of row {@code row} (1-based). */
    public int rowLength(int row) {
        return start[row] - start[row - 1];
    }

    /** The longest row: the paper's m, which sizes the batch buffer and the largest request. */
    public int longestRow() {
        int m = 0;
        for (int i = 1; i <= rows; i++) {
            m = Math.max(m, rowLength(i));
        }
        return m;
    }

    /** Row {@code row}'s values (pairs of ints), a fresh array. */
    public int[] row(int row) {
        return java.util.Arrays.copyOfRange(pairs, 2 * start[row - 1], 2 * start[row]);
    }

    /** The k-th non-zero of row {@code row} as one value, the paper's Fig. 1 {@code batch} (reused, so not kept). */
    void value(int row, int k, int[] batch) {
        int at = start[row - 1] + k;
        batch[0] = pairs[2 * at];
        batch[1] = pairs[2 * at + 1];
    }
}
