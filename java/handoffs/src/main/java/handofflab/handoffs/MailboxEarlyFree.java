package handofflab.handoffs;

/** BUGGY on purpose: mailboxes, and a worker marks itself free before taking, so the acceptor can overwrite the connection waiting for it (specs/MailboxEarlyFree.cfg: NoLoss). */
public final class MailboxEarlyFree<T> extends Mailbox<T> {

    public MailboxEarlyFree(int workers) {
        super(workers, true, true);
    }
}
