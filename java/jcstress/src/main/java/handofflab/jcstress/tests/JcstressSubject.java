package handofflab.jcstress.tests;

import handofflab.handoffs.FastBuffer;
import handofflab.handoffs.FastPht;
import handofflab.handoffs.Handoff;
import java.lang.reflect.Constructor;

/**
 * The class a jcstress test runs on: the design's own (FastBuffer, FastPht), or a catalogued variant of it named by
 * {@code -Dhandofflab.jcstress.subject=NAME} (handofflab.jcstress.Verdicts passes it to every fork), so that the same
 * tests hold a twin to the design's claims.
 */
final class JcstressSubject {
    static final String PROPERTY = "handofflab.jcstress.subject";

    private JcstressSubject() {
    }

    static <T> FastBuffer<T> buffer(int capacity) {
        return make(FastBuffer.class, capacity);
    }

    static <T> FastPht<T> pht(int slots) {
        return make(FastPht.class, slots);
    }

    private static final java.util.Map<Class<?>, Constructor<?>> MADE = new java.util.concurrent.ConcurrentHashMap<>();

    @SuppressWarnings("unchecked")
    private static <H> H make(Class<?> design, int size) {
        Constructor<?> c = MADE.computeIfAbsent(design, d -> constructor(d));
        try {
            return (H) c.newInstance(size);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build " + c.getDeclaringClass().getName() + "(" + size + "): " + e, e);
        }
    }

    private static Constructor<?> constructor(Class<?> design) {
        String name = System.getProperty(PROPERTY, design.getSimpleName());
        try {
            Class<?> cls = Class.forName("handofflab.handoffs." + name);
            if (!design.isAssignableFrom(cls)) {
                throw new IllegalStateException(name + " is not a " + design.getSimpleName() + ": these tests are that design's");
            }
            return cls.getConstructor(int.class);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no handoff class " + name + " with a public (int) constructor: " + e, e);
        }
    }

    /** A connection as the tests hand it over: its field written by the acceptor before the put. */
    static final class Conn {
        int port;

        Conn(int port) {
            this.port = port;
        }
    }

    /** A take that cannot be interrupted in a jcstress actor (an actor declares no checked exception). */
    static <T> T take(Handoff<T> h) {
        try {
            return h.take();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    static <T> void put(Handoff<T> h, T item) {
        try {
            h.put(item);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
