package handofflab.handoffs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * BUGGY on purpose, and only by the memory model: {@link FastBuffer} whose acceptor registers to sleep with a
 * release store ({@code setRelease}) instead of a volatile write. Every interleaving of its steps is FastBuffer's, so
 * TLC, Lincheck and trace validation pass it. On x86 the store waits in the acceptor's store buffer while its next
 * read, of the take index, goes ahead: the acceptor sees its place still unclaimed while the worker, which claimed
 * it, sees no acceptor registered, and the acceptor sleeps with room. jcstress sees it (java/jcstress,
 * FastBufferAcceptorWake): the one line below is the whole difference.
 */
public final class ReleaseRegisterBuffer<T> extends FastBuffer<T> {
    private static final VarHandle ACCEPTOR_WAITING;

    static {
        try {
            ACCEPTOR_WAITING = MethodHandles.lookup().findVarHandle(FastBuffer.class, "acceptorWaiting", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public ReleaseRegisterBuffer(int capacity) {
        super(capacity);
    }

    @Override
    void registerAcceptor() {
        ACCEPTOR_WAITING.setRelease(this, true);  // BUG: a release store; the read of takeAt after it may pass it
    }
}
