package handofflab.checks;

/**
 * The smallest program on which jpf-core (java-17 branch) and the JVM disagree about
 * {@code notify()}: two threads wait on one monitor for a ticket; main hands out two tickets
 * and calls {@code notify()} once; the woken thread takes its ticket and, seeing one left,
 * calls {@code notify()} for the other. The Java spec says notify() wakes one waiting thread,
 * so on the JVM this always ends ({@code ./lab check java --notify-witness} runs it 200 times).
 * jpf-core's peer for notify() wakes nobody when two or more threads wait, so JPF reports a
 * deadlock on it. The kit's JPF verdicts on code that calls notify() with two waiters are
 * therefore not evidence (see the checkers chapter); notifyAll() is modelled correctly.
 */
public final class NotifyWitness {
    private static final Object LOCK = new Object();
    private static int waiting = 0;  // guarded by LOCK
    private static int tickets = 0;  // guarded by LOCK

    private NotifyWitness() {
    }

    public static void main(String[] args) throws InterruptedException {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        for (int r = 0; r < runs; r++) {
            once();
        }
        System.out.println("finished " + runs + "/" + runs);
    }

    private static void once() throws InterruptedException {
        waiting = 0;
        tickets = 0;
        Thread[] waiters = new Thread[2];
        for (int i = 0; i < waiters.length; i++) {
            waiters[i] = new Thread(NotifyWitness::waitForTicket, "waiter-" + (i + 1));
            waiters[i].start();
        }
        synchronized (LOCK) {
            while (waiting < 2) {  // both wait before the first notify: the case in question
                LOCK.wait();
            }
            tickets = 2;
            LOCK.notify();  // wakes one of the two
        }
        for (Thread w : waiters) {
            w.join();
        }
    }

    private static void waitForTicket() {
        synchronized (LOCK) {
            waiting++;
            LOCK.notifyAll();  // tells main (and the other waiter, which waits again)
            try {
                while (tickets == 0) {
                    LOCK.wait();
                }
            } catch (InterruptedException e) {
                return;
            }
            tickets--;
            if (tickets > 0) {
                LOCK.notify();  // the other one's turn
            }
        }
    }
}
