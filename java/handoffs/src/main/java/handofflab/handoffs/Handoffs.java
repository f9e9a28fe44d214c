package handofflab.handoffs;

import java.lang.reflect.Constructor;

/**
 * Creates a handoff from its class: a simple name is one of this package's (the catalog's
 * {@code java =}), a dotted name a student's class. The class has a public {@code (int size)}
 * constructor, or a public no-argument one when nothing sizes it (an unbounded queue). How it
 * is sized and driven comes with it from the catalog ({@link CheckProfile}); this class keeps
 * no list of names.
 */
public final class Handoffs {
    private Handoffs() {
    }

    /** The full class name of {@code name}: this package's class, or a dotted name as it is. */
    public static String className(String name) {
        return name.contains(".") ? name : Handoffs.class.getPackageName() + "." + name;
    }

    /** A new handoff of class {@code name} with {@code size} slots or workers (ignored by an unsized class). */
    @SuppressWarnings("unchecked")
    public static <T> Handoff<T> create(String name, int size) {
        Class<?> cls;
        try {
            cls = Class.forName(className(name));
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("unknown handoff '" + name + "': no class " + className(name)
                    + " (the catalog's java = names a class of handofflab.handoffs)", e);
        }
        if (!Handoff.class.isAssignableFrom(cls)) {
            throw new IllegalArgumentException(cls.getName() + " does not implement Handoff");
        }
        try {
            Constructor<?> sized = constructor(cls, int.class);
            return (Handoff<T>) (sized != null ? sized.newInstance(size) : cls.getConstructor().newInstance());
        } catch (java.lang.reflect.InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;  // e.g. an IllegalArgumentException on a size it refuses
            }
            throw new IllegalArgumentException("creating " + cls.getName() + " failed: " + cause, cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot create " + cls.getName() + " as a Handoff: it needs a public "
                    + "(int size) or no-argument constructor (" + e + ")", e);
        }
    }

    private static Constructor<?> constructor(Class<?> cls, Class<?>... parameters) {
        try {
            return cls.getConstructor(parameters);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
