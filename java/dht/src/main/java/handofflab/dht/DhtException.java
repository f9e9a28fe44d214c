package handofflab.dht;

/**
 * A distributed operation that could not be done: a target that cannot be reached or died, or
 * processes started with different settings. The message names the target and what to do.
 */
public final class DhtException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public DhtException(String message) {
        super(message);
    }

    public DhtException(String message, Throwable cause) {
        super(message, cause);
    }
}
