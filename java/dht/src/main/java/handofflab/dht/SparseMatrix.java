package handofflab.dht;

import java.util.SplittableRandom;

/**
 * A sparse matrix in compressed rows, for the paper's scatter. Either made up by the kit: the paper's
 * Table 1 scatters MatrixMarket matrices, which the kit may not download, so it makes one of the same
 * size and number of non-zeros instead. Or read from a MatrixMarket coordinate file that the reader
 * downloaded ({@link #read}). Either way every process builds the same matrix, which is how each
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

    private SparseMatrix(int rows, int[] start, int[] pairs) {
        this.rows = rows;
        this.nonzeros = pairs.length / 2;
        this.start = start;
        this.pairs = pairs;
    }

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

    /**
     * A MatrixMarket coordinate file ({@code %%MatrixMarket matrix coordinate real|integer|pattern ...}):
     * its entries as stored, so a symmetric matrix keeps the one triangle the file holds (the paper
     * does not say whether Table 1 counts stored or full entries). A pattern matrix's values are 1.
     */
    public static SparseMatrix read(java.nio.file.Path file) throws java.io.IOException {
        try (java.io.BufferedReader in = java.nio.file.Files.newBufferedReader(file)) {
            String header = in.readLine();
            String[] h = header == null ? new String[0] : header.trim().toLowerCase(java.util.Locale.ROOT).split("\\s+");
            if (h.length < 5 || !h[0].equals("%%matrixmarket") || !h[1].equals("matrix") || !h[2].equals("coordinate")
                    || !java.util.List.of("real", "integer", "pattern").contains(h[3])) {
                throw new IllegalArgumentException(file + " is not a MatrixMarket coordinate file of real, integer or pattern "
                        + "values (its first line: '" + header + "')");
            }
            boolean pattern = h[3].equals("pattern");
            String line = in.readLine();
            while (line != null && (line.startsWith("%") || line.isBlank())) {
                line = in.readLine();
            }
            int[] size = numbers(line, 3, file, "the size line (rows, columns, entries)");
            int rows = size[0], entries = size[2];
            int[] row = new int[entries], col = new int[entries], bits = new int[entries], count = new int[rows + 1];
            for (int k = 0; k < entries; k++) {
                line = in.readLine();
                if (line == null) {
                    throw new IllegalArgumentException(file + " ends after " + k + " of its " + entries + " entries");
                }
                String[] f = line.trim().split("\\s+");
                int[] rc = numbers(f.length >= 2 ? f[0] + " " + f[1] : line, 2, file, "entry " + (k + 1));
                if (rc[0] < 1 || rc[0] > rows || rc[1] < 1 || rc[1] > size[1]) {
                    throw new IllegalArgumentException(file + ": entry " + (k + 1) + " (" + line.trim() + ") is outside the "
                            + rows + " x " + size[1] + " matrix");
                }
                row[k] = rc[0];
                col[k] = rc[1];
                bits[k] = Float.floatToIntBits(pattern ? 1f : Float.parseFloat(f.length > 2 ? f[2] : "x"));
                count[rc[0]]++;
            }
            int[] start = new int[rows + 1];
            for (int i = 1; i <= rows; i++) {
                start[i] = start[i - 1] + count[i];
            }
            int[] next = java.util.Arrays.copyOf(start, rows), pairs = new int[2 * entries];
            for (int k = 0; k < entries; k++) {
                int at = next[row[k] - 1]++;
                pairs[2 * at] = col[k];
                pairs[2 * at + 1] = bits[k];
            }
            return new SparseMatrix(rows, start, pairs);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + " has an entry whose value is not a number: " + e.getMessage());
        }
    }

    private static int[] numbers(String line, int k, java.nio.file.Path file, String what) {
        String[] f = line == null ? new String[0] : line.trim().split("\\s+");
        int[] out = new int[k];
        try {
            for (int i = 0; i < k; i++) {
                out[i] = Integer.parseInt(f[i]);
            }
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(file + ": " + what + " should be " + k + " whole numbers, got '" + line + "'");
        }
        return out;
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
