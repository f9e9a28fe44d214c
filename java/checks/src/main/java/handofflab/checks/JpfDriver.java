package handofflab.checks;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import java.util.ArrayList;
import java.util.List;

/**
 * The program JPF explores, as the catalog's check profile says: the connections {@code jpf_ids}
 * (1 and 2 unless a variant needs others), shared out among {@code jpf_acceptors} acceptors, handed
 * through the handoff (of {@code size}) to one worker per connection. Two waiting workers and one
 * acceptor is the smallest set-up in which a lost wake-up can happen. JPF tries every interleaving
 * and every value a {@code java.util.Random} draw can take (the PHT's probe start); a deadlock is its
 * NotDeadlockedProperty, a broken exactly-once the AssertionError below, and an assert in the kit's
 * classes (enabled for JPF only) a broken bound, such as an insert that probes past every slot.
 *
 * <p>Plain threads and monitors only (no java.util.concurrent): JPF models those, except that
 * jpf-core's notify() wakes nobody when two or more threads wait ({@link NotifyWitness}).
 */
public final class JpfDriver {
    private JpfDriver() {
    }

    /** Arguments: NAME SIZE ACCEPTORS IDS (IDS as 1/2): the catalog's profile. */
    public static void main(String[] args) throws InterruptedException {
        String name = args.length > 0 ? args[0] : "MonitorBuffer";
        Handoff<Integer> handoff = Handoffs.create(name, args.length > 1 ? Integer.parseInt(args[1]) : 1);
        int acceptorCount = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        String[] idText = (args.length > 3 ? args[3] : "1/2").split("/");
        int[] ids = new int[idText.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = Integer.parseInt(idText[i]);
        }
        List<Integer> taken = new ArrayList<>();
        List<Thread> acceptors = new ArrayList<>();
        for (int a = 0; a < acceptorCount; a++) {  // ids shared out in turn: with two, 1 and 4 race for one slot
            List<Integer> mine = new ArrayList<>();
            for (int i = a; i < ids.length; i += acceptorCount) {
                mine.add(ids[i]);
            }
            acceptors.add(acceptor(handoff, acceptorCount == 1 ? "acceptor" : "acceptor-" + (a + 1), mine));
        }
        Thread[] workers = new Thread[ids.length];
        for (int w = 0; w < workers.length; w++) {
            workers[w] = new Thread(() -> {
                try {
                    Integer id = handoff.take();
                    synchronized (taken) {
                        taken.add(id);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "worker-" + (w + 1));
        }
        for (Thread w : workers) {
            w.start();
        }
        for (Thread a : acceptors) {
            a.start();
        }
        for (Thread a : acceptors) {
            a.join();
        }
        for (Thread w : workers) {
            w.join();
        }
        if (taken.contains(null)) {
            throw new AssertionError("NoInvented: a worker took null, which no acceptor put");
        }
        for (int id : ids) {
            if (taken.indexOf(id) != taken.lastIndexOf(id)) {
                throw new AssertionError("NoDuplicate: a connection was taken twice: " + taken);
            }
            if (!taken.contains(id)) {
                throw new AssertionError("NoLoss: connections taken " + taken + ", accepted " + java.util.Arrays.toString(ids));
            }
        }
    }

    private static Thread acceptor(Handoff<Integer> handoff, String name, List<Integer> ids) {
        return new Thread(() -> {
            try {
                for (int id : ids) {
                    handoff.put(id);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
    }
}
