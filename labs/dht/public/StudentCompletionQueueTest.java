package handofflab.labs.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The lab's public tests: one thread plays the service thread, the test plays the writer. */
class StudentCompletionQueueTest {
    private final List<int[]> back = new ArrayList<>();   // the pool: buffers given back, in order

    @Test
    void withinItsDepthTheServiceThreadDoesNotWait() {
        StudentCompletionQueue q = new StudentCompletionQueue(2, back::add);
        int[] a = {1}, b = {2};
        // Two replies in flight, neither written yet: with depth 2, neither call may wait for them.
        assertTimeoutPreemptively(Duration.ofSeconds(3), () -> {  // two calls that must not wait: 3 s is ample
            q.completed(a, new CompletableFuture<>());
            q.completed(b, new CompletableFuture<>());
        }, "completed() waited although only 2 replies were in flight at depth 2");
        assertTrue(back.isEmpty(), "a buffer went back to the pool before its reply was out");
    }

    @Test
    void aBufferGoesBackOnceItsReplyIsOut() throws InterruptedException {
        StudentCompletionQueue q = new StudentCompletionQueue(1, back::add);
        int[] a = {1};
        CompletableFuture<Void> sent = new CompletableFuture<>();
        sent.complete(null);                 // the writer wrote the reply at once
        q.completed(a, sent);
        q.idle();                            // at the latest when the service thread is idle, it goes back
        assertEquals(1, back.size(), "the buffer whose reply is out did not go back to the pool");
        assertTrue(back.get(0) == a, "another buffer went back");
    }
}
