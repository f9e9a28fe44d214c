package handofflab.checks;

import handofflab.calendar.CollectionList;
import handofflab.dht.LocalTable;
import handofflab.handoffs.CheckProfile;
import handofflab.handoffs.Handoffs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * {@code java handofflab.checks.Main CHECKER CLASS --profile P [--out FILE] [--seconds S] [--nonce-stdin]
 * [--trace FILE EVENTS]}:
 * runs one checker over one handoff class and writes its verdict as JSON. {@code --profile}
 * is the catalog's check profile of the class, or of the design a submitted class is checked
 * like ({@link CheckProfile}): its size, its acceptors. With a class kind instead ({@code --collection}: one of the
 * calendar store's collection lists, {@code handofflab.calendar}; {@code --store}: the store itself, {@code EventStore},
 * a buggy one, or a student's by its full name; {@code --table}: a DHT process's local table, {@code handofflab.dht};
 * {@code --queue}: a DHT target's completion queue; {@code --database}: the calendar's whole database), CLASS is a
 * class that is not a handoff, and {@code --checkers A,B} says which checkers the catalog applies to that kind (its
 * {@code CLASS_CHECKERS}, the one place that rule is written): this class only runs them, each with the runner for
 * the kind ({@link CollectionLincheck}, {@link StoreLincheck}, {@link StoreStress}, {@link StoreLocks},
 * {@link TableLincheck}, {@link ReplyProbe}, {@link DepthProbe}, the database's probes, {@link JpfCheck}). Exit 0
 * when a verdict was reached (whatever it is), 2 for bad arguments.
 */
public final class Main {
    private Main() {
    }

    /** The database's race probe or lock probe ({@code checker}: races or locks), by name only: a student copy of the
     *  calendar lab withholds the database (it needs the lab's answer, EventStore) and these probes, and Main must
     *  compile without them. */
    private static Verdict databaseProbe(String checker, String className) throws Exception {
        Class<?> probe;
        try {
            probe = Class.forName("handofflab.checks.DatabaseRaces");
        } catch (ClassNotFoundException e) {
            Verdict v = new Verdict(checker, className);
            v.verdict = "error:Missing";
            v.detail = "the database's probes are not in this copy of the kit (a student copy of the calendar lab leaves the"
                    + " database out)";
            return v;
        }
        try {
            return (Verdict) probe.getMethod(checker.equals("races") ? "run" : "locks", String.class).invoke(null, className);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        }
    }

    public static void main(String[] args) throws Exception {
        Request r = Request.parse(args);
        Verdict v = initialize(r.checker, r.subject, r.className());
        if (v == null) {
            v = r.classKind == null ? checkHandoff(r) : checkKind(r);
        }
        v.nonce = r.nonce == null ? "" : r.nonce;
        System.err.println(r.checker + " " + r.subject + ": " + v.verdict + (v.detail.isEmpty() ? "" : " — " + v.detail));
        if (r.out != null) {
            Files.createDirectories(r.out.toAbsolutePath().getParent());
            Files.write(r.out, v.toJson().getBytes(StandardCharsets.UTF_8));
        } else {
            System.out.println(v.toJson());
        }
        System.exit(0);  // stuck checker threads (a deadlocked handoff) must not keep the JVM alive
    }

    /** A handoff, by the checker asked for, as its check profile says. */
    private static Verdict checkHandoff(Request r) throws Exception {
        switch (r.checker) {
            case "lincheck": return LincheckCheck.run(r.subject, r.profile);
            case "stress": return StressCheck.run(r.subject, r.profile, r.seconds, r.trace, r.traceEvents);
            case "jpf": return JpfCheck.run(r.subject, r.profile);
            case "trace":  // records one run for trace validation; TLC judges it (./lab check trace)
                if (r.out == null) {
                    usage("trace needs --out FILE (the verdict); the run's events go to FILE.csv");
                }
                return TraceRecord.run(r.subject, r.profile, 2, r.seconds, Paths.get(r.out + ".csv"));
            default:
                usage("unknown checker '" + r.checker + "'; known: lincheck, stress, jpf, trace");
                return null;
        }
    }

    /** A class that is no handoff, by the runner of its kind for the checker asked for (one the catalog applies). */
    private static Verdict checkKind(Request r) throws Exception {
        String checker = r.checker, className = r.className();
        switch (r.classKind) {
            case "collection": return CollectionLincheck.run(r.subject);
            case "database": return checker.equals("jpf") ? JpfCheck.runDatabase(className) : databaseProbe(checker, className);
            case "table": return TableLincheck.run(r.subject);
            case "queue": return checker.equals("depth") ? DepthProbe.run(className) : ReplyProbe.run(className);
            default:  // store
                return checker.equals("stress") ? StoreStress.run(className, r.seconds)
                        : checker.equals("locks") ? StoreLocks.run(className)
                        : checker.equals("jpf") ? JpfCheck.runStore(className) : StoreLincheck.run(className);
        }
    }

    /** The command line, parsed and held to its rules (a bad one ends in usage, exit 2). */
    private static final class Request {
        String checker, subject;
        Path out;
        double seconds = 10;
        String nonce = "";
        Path trace;           // stress: record its first trial there (trace validation)
        long traceEvents;
        CheckProfile profile;
        String classKind;     // "collection", "store", "table", "queue" or "database": a class that is not a handoff
        List<String> kindCheckers;  // the checkers the catalog applies to classKind

        static Request parse(String[] args) throws IOException {
            if (args.length < 2) {
                usage("expected CHECKER CLASS");
            }
            Request r = new Request();
            r.checker = args[0];
            r.subject = args[1];
            for (int i = 2; i < args.length; i++) {
                i = r.option(args, i);
            }
            if (r.classKind != null && r.kindCheckers == null) {
                usage("--checkers is missing: ./lab check java and the grader pass the catalog's checkers of a " + r.classKind);
            }
            if (r.classKind != null && !r.kindCheckers.contains(r.checker)) {
                usage("the catalog checks a " + r.classKind + " by " + String.join(", ", r.kindCheckers) + "; not by "
                        + r.checker);
            }
            if (r.profile == null && r.classKind == null) {
                usage("--profile is missing: ./lab check java and the grader pass the catalog's check profile");
            }
            return r;
        }

        /** Reads the option at args[i] (and its values); the index of its last word. */
        private int option(String[] args, int i) throws IOException {
            if (args[i].equals("--out") && i + 1 < args.length) {
                out = Paths.get(args[++i]);
            } else if (args[i].equals("--seconds") && i + 1 < args.length) {
                seconds = Double.parseDouble(args[++i]);
            } else if (args[i].equals("--trace") && i + 2 < args.length) {
                trace = Paths.get(args[++i]);
                traceEvents = Long.parseLong(args[++i]);
            } else if (args[i].equals("--nonce-stdin")) {
                // The grader's secret for this run, read before any submitted class loads: a
                // verdict file without it was not written by this checker.
                nonce = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            } else if (List.of("--collection", "--store", "--table", "--queue", "--database").contains(args[i])) {
                classKind = args[i].substring(2);
            } else if (args[i].equals("--checkers") && i + 1 < args.length) {
                kindCheckers = List.of(args[++i].split(","));
            } else if (args[i].equals("--profile") && i + 1 < args.length) {
                try {
                    profile = CheckProfile.parse(args[++i]);
                } catch (IllegalArgumentException e) {
                    usage(e.getMessage());
                }
            } else {
                usage("unknown argument '" + args[i] + "'");
            }
            return i;
        }

        /** The class's full name: a handoff's by the catalog's name, another kind's in its package unless given whole. */
        String className() {
            if (classKind == null) {
                return Handoffs.className(subject);
            }
            if (subject.contains(".")) {
                return subject;
            }
            Class<?> inPackage = "table".equals(classKind) || "queue".equals(classKind) ? LocalTable.class : CollectionList.class;
            return inPackage.getPackageName() + "." + subject;
        }
    }

    /**
     * Loads and initializes a submitted class first, on its own thread and for at most 10 s,
     * so that a static initializer that never returns, or throws, is a verdict of its own
     * instead of a checker hung until the grader's time limit. The thread is called "main", as
     * the thread that loads the class in the public tests and the kit's servers is: a class that
     * read its loader's name ("initializer") was correct only under the checkers (issue 51).
     */
    private static Verdict initialize(String checker, String subject, String className) throws InterruptedException {
        Throwable[] failure = new Throwable[1];
        Thread loader = new Thread(() -> {
            try {
                Class.forName(className, true, Main.class.getClassLoader());
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, "main");  // the name every other JVM that loads it gives: a class must not learn that it is being checked
        loader.setDaemon(true);
        loader.start();
        loader.join(10_000);
        if (!loader.isAlive() && failure[0] == null) {
            return null;
        }
        Verdict v = new Verdict(checker, subject);
        v.verdict = "error:Initializer";
        Throwable cause = failure[0] != null && failure[0].getCause() != null ? failure[0].getCause() : failure[0];
        v.detail = loader.isAlive() ? "loading " + subject + " did not finish within 10 s: its static initializer never returns"
                : "loading " + subject + " failed: " + cause;
        return v;
    }

    private static void usage(String problem) throws IOException {
        System.err.println("checks: " + problem);
        System.err.println("usage: java handofflab.checks.Main lincheck|stress|jpf|trace|locks|replies|depth|races CLASS --profile P|--collection|--store|--table|--queue|--database [--out FILE] [--seconds S] [--trace FILE EVENTS (stress)]");
        System.exit(2);
    }
}
