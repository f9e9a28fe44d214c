package handofflab.checks;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import java.util.ArrayList;
import java.util.List;

/**
 * The program JPF explores: one acceptor (two where the catalog says jpf_acceptors = 2:
 * TwoProducerPht) hands connections 1 and 2 (1 and 4) through a one-slot handoff to two workers that take one each — the smallest set-up in
 * which notify()'s lost wake-up can happen. JPF tries every interleaving (and,
 * for notify(), every choice of the thread woken); any deadlock is its
 * NotDeadlockedProperty, and a broken exactly-once is the AssertionError below.
 *
 * <p>Plain threads and monitors only (no java.util.concurrent): JPF models those
 * exactly, and this class compiles for Java 11 as JPF's master branch needs.
 */
public final class JpfDriver {
    private JpfDriver() {
    }

    public static void main(String[] args) throws InterruptedException {
        String name = args.length > 0 ? args[0] : "MonitorBuffer";  // NAME SIZE ACCEPTORS: the catalog's profile
        Handoff<Integer> handoff = Handoffs.create(name, args.length > 1 ? Integer.parseInt(args[1]) : 1);
        List<Integer> taken = new ArrayList<>();
        // Two acceptors only where the bug is a second one (TwoProducerPht); its ids 1 and 4 share a slot.
        boolean two = args.length > 2 && Integer.parseInt(args[2]) == 2;
        int first = 1, second = two ? 4 : 2;
        List<Thread> acceptors = new ArrayList<>();
        if (two) {
            acceptors.add(acceptor(handoff, "acceptor-1", first));
            acceptors.add(acceptor(handoff, "acceptor-2", second));
        } else {
            acceptors.add(acceptor(handoff, "acceptor", first, second));
        }
        Thread[] workers = new Thread[2];
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
        if (taken.indexOf(first) != taken.lastIndexOf(first) || taken.indexOf(second) != taken.lastIndexOf(second)) {
            throw new AssertionError("NoDuplicate: a connection was taken twice: " + taken);
        }
        if (!taken.contains(first) || !taken.contains(second)) {
            throw new AssertionError("NoLoss: connections taken " + taken + ", accepted [" + first + ", " + second + "]");
        }
    }

    private static Thread acceptor(Handoff<Integer> handoff, String name, int... ids) {
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
