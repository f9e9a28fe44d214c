package handofflab.handoffs;

import static org.junit.jupiter.api.Assertions.fail;

/** The handoffs' tests run a call on a thread of its own and wait, with a bound, for the state they expect it in. */
final class TestThreads {
    private TestThreads() {
    }

    /** A put, a take, an acquire: what a test runs on its own thread. */
    interface Call {
        void run() throws InterruptedException;
    }

    /** A thread for call, not started, so that a test can start it while it holds a monitor; an interrupt ends it. */
    static Thread thread(Call call) {
        return new Thread(() -> {
            try {
                call.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** A started thread for call. */
    static Thread start(Call call) {
        Thread t = thread(call);
        t.start();
        return t;
    }

    /** Waits until t is in state (WAITING: in wait(), so registered); a bound on waiting, not a timing assumption. */
    static void awaitState(Thread t, Thread.State state) throws InterruptedException {
        for (int i = 0; i < 20_000; i++) {
            if (t.getState() == state) {
                return;
            }
            Thread.sleep(1);
        }
        fail(t.getName() + " never reached " + state + "; it is " + t.getState());
    }
}
