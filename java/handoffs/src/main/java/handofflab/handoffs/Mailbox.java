package handofflab.handoffs;

/**
 * {@link PipeHandoff} with one-slot mailboxes instead of pipes: a write replaces
 * what is in the mailbox. Correct, because the busy flag keeps the acceptor away
 * from a worker whose mailbox may be full. TLA+: {@code specs/Mailbox.cfg}.
 */
public class Mailbox<T> extends PipeHandoff<T> {

    public Mailbox(int workers) {
        super(workers, false, true, false);
    }

    Mailbox(int workers, boolean markBusy, boolean freeBeforeTake) {
        super(workers, false, markBusy, freeBeforeTake);
    }

    /** One slot; put overwrites, take waits for a value. */
    static final class Slot<T> implements Handoff<T> {
        private T item;  // guarded by this

        @Override
        public synchronized void put(T newItem) {
            item = newItem;  // overwrites: the busy-flag protocol must make sure the slot is empty
            notifyAll();
        }

        @Override
        public synchronized T take() throws InterruptedException {
            while (item == null) {
                wait();
            }
            T taken = item;
            item = null;
            return taken;
        }
    }
}
