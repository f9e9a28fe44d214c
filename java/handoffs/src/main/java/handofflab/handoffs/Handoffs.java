package handofflab.handoffs;

import java.util.Arrays;
import java.util.List;

/**
 * Creates a handoff by its catalog name (or, for a student's class, its full
 * class name with an {@code (int capacity)} constructor), for the checkers,
 * servers, benchmarks and the grader.
 */
public final class Handoffs {
    /** Every class in this package that a catalog entry may name. */
    public static final List<String> NAMES = Arrays.asList("MonitorBuffer", "NotifyBuffer", "IfBuffer",
            "TwoLockQueue", "NoDummyQueue", "ParallelHashTable", "SplitSwapPht", "NonPrimePht", "TwoProducerPht",
            "PipeHandoff", "PipesNoBusy", "PipesEarlyFree", "Mailbox", "MailboxNoBusy", "MailboxEarlyFree");

    private Handoffs() {
    }

    private static volatile String studentClass, studentLike;

    /**
     * Checks the submitted class {@code className} the way the kit's design {@code like} is
     * checked (its size, its number of acceptors): a student's PHT gets one acceptor and
     * three slots, as {@code ParallelHashTable} does. Set once, before a checker starts.
     */
    public static void checkLike(String className, String like) {
        if (!NAMES.contains(like)) {
            throw new IllegalArgumentException("unknown design '" + like + "'; known: " + NAMES);
        }
        studentClass = className;
        studentLike = like;
    }

    private static String profile(String name) {
        return name.equals(studentClass) ? studentLike : name;
    }

    /**
     * The small size every checker uses, as the TLA+ models do: one slot for the
     * buffers, three for the PHT (four for NonPrimePht, its point), two workers
     * for the pipes; the queues are unbounded.
     */
    public static int checkSize(String name) {
        switch (profile(name)) {
            case "ParallelHashTable": case "SplitSwapPht": case "TwoProducerPht": return 3;
            case "NonPrimePht": return 4;
            case "PipeHandoff": case "PipesNoBusy": case "PipesEarlyFree":
            case "Mailbox": case "MailboxNoBusy": case "MailboxEarlyFree": return 2;
            default: return 1;
        }
    }

    /** A parallel hash table (the kit's or one checked like it). */
    public static boolean isPht(String name) {
        switch (profile(name)) {
            case "ParallelHashTable": case "SplitSwapPht": case "NonPrimePht": case "TwoProducerPht": return true;
            default: return false;
        }
    }

    /**
     * Designs built for ONE acceptor: the PHT (its insert is a read, then a set)
     * and the pipes (each connection goes to a registered worker's own channel,
     * so every worker index needs a taking thread). Checkers put from one thread.
     */
    public static boolean oneAcceptor(String name) {
        name = profile(name);
        if (name.equals("TwoProducerPht")) {
            return false;  // its bug IS a second acceptor
        }
        return name.endsWith("Pht") || name.equals("ParallelHashTable") || name.startsWith("Pipe")
                || name.startsWith("Mailbox");
    }

    /**
     * How many acceptors the stress check runs: one, as every server of the paper has,
     * except for TwoProducerPht, whose whole point is a second one.
     */
    public static int stressAcceptors(String name) {
        return profile(name).equals("TwoProducerPht") ? 2 : 1;
    }

    /**
     * The shapes the stress check's trials take in turn: {acceptors, size}. A bounded buffer is
     * also tried with two and three slots (a lost wake-up that needs a second slot hides at one),
     * and every design made for more than one acceptor also with two.
     */
    public static int[][] stressShapes(String name) {
        int[] sizes = checkCapacity(name) == 1 ? new int[] {1, 2, 3} : new int[] {checkSize(name)};
        int[] acceptors = oneAcceptor(name) ? new int[] {stressAcceptors(name)} : new int[] {1, 2};
        int[][] shapes = new int[sizes.length * acceptors.length][];
        int i = 0;
        for (int size : sizes) {
            for (int a : acceptors) {
                shapes[i++] = new int[] {a, size};
            }
        }
        return shapes;
    }

    /** How many items a handoff of {@code checkSize} holds before put waits (MAX_VALUE: unbounded or not simple). */
    public static int checkCapacity(String name) {
        name = profile(name);
        switch (name) {
            case "MonitorBuffer": case "NotifyBuffer": case "IfBuffer": return 1;
            case "ParallelHashTable": case "SplitSwapPht": case "NonPrimePht": case "TwoProducerPht": return checkSize(name);
            default: return Integer.MAX_VALUE;
        }
    }

    /**
     * Creates a handoff by name; {@code size} is the buffer's slots, the PHT's
     * table size, or the pipes' worker count, and is ignored by the queues.
     */
    @SuppressWarnings("unchecked")
    public static <T> Handoff<T> create(String name, int size) {
        int capacity = size;
        if (name.contains(".")) {
            try {
                return (Handoff<T>) Class.forName(name).getConstructor(int.class).newInstance(capacity);
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new IllegalArgumentException("cannot create " + name + " as a Handoff with a public ("
                        + "int capacity) constructor: " + e, e);
            }
        }
        switch (name) {
            case "MonitorBuffer": return new MonitorBuffer<>(capacity);
            case "NotifyBuffer": return new NotifyBuffer<>(capacity);
            case "IfBuffer": return new IfBuffer<>(capacity);
            case "TwoLockQueue": return new TwoLockQueue<>();
            case "NoDummyQueue": return new NoDummyQueue<>();
            case "ParallelHashTable": return new ParallelHashTable<>(size);
            case "SplitSwapPht": return new SplitSwapPht<>(size);
            case "NonPrimePht": return new NonPrimePht<>(size);
            case "TwoProducerPht": return new TwoProducerPht<>(size);
            case "PipeHandoff": return new PipeHandoff<>(size);
            case "PipesNoBusy": return new PipesNoBusy<>(size);
            case "PipesEarlyFree": return new PipesEarlyFree<>(size);
            case "Mailbox": return new Mailbox<>(size);
            case "MailboxNoBusy": return new MailboxNoBusy<>(size);
            case "MailboxEarlyFree": return new MailboxEarlyFree<>(size);
            default:
                throw new IllegalArgumentException("unknown handoff '" + name + "'; known: " + NAMES);
        }
    }
}
