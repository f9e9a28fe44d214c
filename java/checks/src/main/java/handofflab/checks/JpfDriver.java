package handofflab.checks;

import handofflab.handoffs.Handoff;
import handofflab.handoffs.Handoffs;
import java.util.ArrayList;
import java.util.List;

/**
 * The program JPF explores: one acceptor hands connections 1 and 2 through a
 * one-slot handoff to two workers that take one each — the smallest set-up in
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
        String name = args.length > 0 ? args[0] : "MonitorBuffer";
        Handoff<Integer> handoff = Handoffs.create(name, Handoffs.checkSize(name));
        List<Integer> taken = new ArrayList<>();
        Thread acceptor = new Thread(() -> {
            try {
                handoff.put(1);
                handoff.put(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "acceptor");
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
        acceptor.start();
        acceptor.join();
        for (Thread w : workers) {
            w.join();
        }
        if (taken.contains(null)) {
            throw new AssertionError("NoInvented: a worker took null, which no acceptor put");
        }
        if (taken.indexOf(1) != taken.lastIndexOf(1) || taken.indexOf(2) != taken.lastIndexOf(2)) {
            throw new AssertionError("NoDuplicate: a connection was taken twice: " + taken);
        }
        if (!taken.contains(1) || !taken.contains(2)) {
            throw new AssertionError("NoLoss: connections taken " + taken + ", accepted [1, 2]");
        }
    }
}
