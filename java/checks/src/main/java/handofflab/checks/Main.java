package handofflab.checks;

import handofflab.calendar.CollectionList;
import handofflab.handoffs.CheckProfile;
import handofflab.handoffs.Handoffs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

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
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            usage("expected CHECKER CLASS");
        }
        String checker = args[0], subject = args[1];
        Path out = null;
        double seconds = 10;
        String nonce = "";
        Path trace = null;     // stress: record its first trial there (trace validation)
        long traceEvents = 0;
        CheckProfile profile = null;
        String classKind = null;  // "collection", "store", "table", "queue" or "database": a class that is not a handoff
        java.util.List<String> kindCheckers = null;  // the checkers the catalog applies to classKind
        for (int i = 2; i < args.length; i++) {
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
                nonce = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8))
                        .readLine();
            } else if (java.util.List.of("--collection", "--store", "--table", "--queue", "--database").contains(args[i])) {
                classKind = args[i].substring(2);
            } else if (args[i].equals("--checkers") && i + 1 < args.length) {
                kindCheckers = java.util.List.of(args[++i].split(","));
            } else if (args[i].equals("--profile") && i + 1 < args.length) {
                try {
                    profile = CheckProfile.parse(args[++i]);
                } catch (IllegalArgumentException e) {
                    usage(e.getMessage());
                }
            } else {
                usage("unknown argument '" + args[i] + "'");
            }
        }
        if (classKind != null && kindCheckers == null) {
            usage("--checkers is missing: ./lab check java and the grader pass the catalog's checkers of a " + classKind);
        }
        if (classKind != null && !kindCheckers.contains(checker)) {
            usage("the catalog checks a " + classKind + " by " + String.join(", ", kindCheckers) + "; not by " + checker);
        }
        if (profile == null && classKind == null) {
            usage("--profile is missing: ./lab check java and the grader pass the catalog's check profile");
            return;
        }
        String className = classKind == null ? Handoffs.className(subject)
                : subject.contains(".") ? subject
                : ("table".equals(classKind) || "queue".equals(classKind) ? handofflab.dht.LocalTable.class
                        : CollectionList.class).getPackageName()
                        + "." + subject;
        Verdict v = initialize(checker, subject, className);
        if (v == null && "collection".equals(classKind)) {
            v = CollectionLincheck.run(subject);
        } else if (v == null && "database".equals(classKind)) {
            v = checker.equals("jpf") ? JpfCheck.runDatabase(className) : databaseProbe(checker, className);
        } else if (v == null && "table".equals(classKind)) {
            v = TableLincheck.run(subject);
        } else if (v == null && "queue".equals(classKind)) {
            v = checker.equals("depth") ? DepthProbe.run(className) : ReplyProbe.run(className);
        } else if (v == null && "store".equals(classKind)) {
            v = checker.equals("stress") ? StoreStress.run(className, seconds)
                    : checker.equals("locks") ? StoreLocks.run(className)
                    : checker.equals("jpf") ? JpfCheck.runStore(className) : StoreLincheck.run(className);
        } else if (v == null) {
            switch (checker) {
                case "lincheck": v = LincheckCheck.run(subject, profile); break;
                case "stress": v = StressCheck.run(subject, profile, seconds, trace, traceEvents); break;
                case "jpf": v = JpfCheck.run(subject, profile); break;
                case "trace":  // records one run for trace validation; TLC judges it (./lab check trace)
                    if (out == null) {
                        usage("trace needs --out FILE (the verdict); the run's events go to FILE.csv");
                    }
                    v = TraceRecord.run(subject, profile, 2, seconds, Paths.get(out + ".csv"));
                    break;
                default: usage("unknown checker '" + checker + "'; known: lincheck, stress, jpf, trace"); return;
            }
        }
        v.nonce = nonce == null ? "" : nonce;
        System.err.println(checker + " " + subject + ": " + v.verdict + (v.detail.isEmpty() ? "" : " — " + v.detail));
        if (out != null) {
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.write(out, v.toJson().getBytes(StandardCharsets.UTF_8));
        } else {
            System.out.println(v.toJson());
        }
        System.exit(0);  // stuck checker threads (a deadlocked handoff) must not keep the JVM alive
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
