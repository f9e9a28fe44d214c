package handofflab.handoffs;

/** BUGGY on purpose: mailboxes, and the acceptor does not mark the worker busy, so it can overwrite a connection not yet taken (specs/MailboxNoBusy.cfg: NoLoss). */
public final class MailboxNoBusy<T> extends Mailbox<T> {

    public MailboxNoBusy(int workers) {
        super(workers, false, false);
    }
}
