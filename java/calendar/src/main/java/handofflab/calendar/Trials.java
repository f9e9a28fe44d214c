package handofflab.calendar;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What every trial of the calendar's store and database shares: a request made on a trial's thread
 * ({@link #unchecked}), a check that fails the trial saying what broke ({@link #check}), and the crash trials'
 * lines between the driver process and the trial that kills it ({@link #say}, {@link #wholeLine}).
 */
public final class Trials {
    private Trials() {
    }

    /** A request to a store, which may fail with an IOException. */
    public interface IoCall<T> {
        T call() throws IOException;
    }

    /** A request's result, its IOException rethrown unchecked (a request made on a thread of a trial). */
    public static <T> T unchecked(IoCall<T> call) {
        try {
            return call.call();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Fails the trial, saying {@code problem}, unless {@code ok}. */
    static void check(boolean ok, String problem) {
        if (!ok) {
            throw new AssertionError(problem);
        }
    }

    /** A line of the crash driver's, printed whole: the trial reads what the driver said before the kill. */
    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** The next line ended by a newline; null at the end, where a line the kill cut off is dropped. */
    static String wholeLine(BufferedReader in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c; (c = in.read()) != -1; ) {
            if (c == '\n') {
                return line.toString();
            }
            line.append((char) c);
        }
        return null;
    }
}
