package handofflab.jcstress;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What one actor of a jcstress test does, in the kit's swimlane: its lane (the acceptor, a worker), what it does, and
 * which fields of the test's result it writes ({@code results}: 1 for r1, 2 for r2; none if it writes none), with
 * what their values mean.
 * {@link Verdicts} draws a forbidden outcome from these: each actor's step, and what it saw.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Lane {
    String thread();

    String does();

    int[] results() default {};

    /** What the actor saw, with {@code %s} for the values jcstress observed (joined by ", "). */
    String sees() default "";
}
