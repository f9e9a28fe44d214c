package handofflab.labs.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lab's public tests: what one thread, or one waiting thread, can see. */
class StudentBufferTest {

    @Test
    void oneThreadSeesAFifo() throws InterruptedException {
        StudentBuffer<Integer> b = new StudentBuffer<>(3);
        for (int round = 0; round < 5; round++) {
            b.put(round);
            b.put(round + 100);
            assertEquals(round, b.take());
            assertEquals(round + 100, b.take());
        }
    }

    @Test
    void putWaitsForRoomAndTakeForAnItem() throws Exception {
        StudentBuffer<Integer> b = new StudentBuffer<>(1);
        b.put(1);
        Thread acceptor = new Thread(() -> {
            try {
                b.put(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        acceptor.start();
        awaitWaiting(acceptor);
        assertEquals(1, b.take());
        acceptor.join();
        assertEquals(2, b.take());
        List<Integer> got = new ArrayList<>();
        Thread worker = new Thread(() -> {
            try {
                got.add(b.take());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        worker.start();
        awaitWaiting(worker);
        b.put(3);
        worker.join();
        assertEquals(List.of(3), got);
    }

    private static void awaitWaiting(Thread t) throws InterruptedException {
        for (int i = 0; i < 10_000; i++) {
            // WAITING for wait(), TIMED_WAITING for wait(ms) in a loop: both are a thread that waits
            if (t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING) {
                return;
            }
            Thread.sleep(1);
        }
        fail("the thread should wait, but it is " + t.getState());
    }
}
