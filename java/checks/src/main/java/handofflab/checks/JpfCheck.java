package handofflab.checks;

import handofflab.handoffs.CheckProfile;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The optional JPF backend. Java PathFinder is in no package registry, so the
 * kit never downloads, vendors or builds it: it runs a jpf-core build found
 * through {@code JPF_HOME} (with {@code build/jpf.jar}), loaded reflectively so
 * the kit compiles without it. Without JPF_HOME the verdict is {@code skip}, with
 * how to get JPF — never a pass.
 *
 * <p>JPF is driven through its API ({@code JPF.createConfig}, {@code new JPF(conf).run()},
 * {@code foundErrors()}), because its RunJPF launcher exits 0 even when it finds an error.
 */
public final class JpfCheck {
    static final String HOWTO = "JPF is optional and in no package registry, so the kit never downloads it. "
            + "Build jpf-core's java-17 branch with a JDK 17 (git clone -b java-17 https://github.com/javapathfinder/jpf-core; "
            + "cd jpf-core; ./gradlew buildJars; its master branch needs Java 11), then export JPF_HOME=/path/to/jpf-core "
            + "(the folder holding build/jpf.jar) and run ./lab check java --jpf.";
    /** JPF's budget, in work: new states explored. The largest catalogued searches need about a quarter
     *  million (ParallelHashTable 226 081, EventStore 213 509, PipeHandoff 111 293; jpf-core java-17 at
     *  7ea25de, 2026-11-28); the budget leaves room for a submission's larger state space. */
    static final int MAX_STATES = Integer.getInteger("handofflab.jpf.max_states", 2_000_000);

    private JpfCheck() {
    }

    /** JPF on the driver, handing connections through the handoff {@code name} built as {@code profile} says. */
    public static Verdict run(String name, CheckProfile profile) throws Exception {
        return explore(new Verdict("jpf", name), JpfDriver.class.getName(),
                name + "," + profile.size + "," + profile.jpfAcceptors + "," + ids(profile));  // JPF splits target.args at commas
    }

    /** JPF on the store driver (StoreJpfDriver): a move, a delete and a load of one event at once. */
    public static Verdict runStore(String storeClass) throws Exception {
        return explore(new Verdict("jpf", storeClass.substring(storeClass.lastIndexOf('.') + 1)),
                StoreJpfDriver.class.getName(), storeClass);
    }

    private static final String DATABASE_DRIVER = "handofflab.checks.DatabaseJpfDriver";

    /**
     * JPF on the calendar database (DatabaseJpfDriver): a join beside the user's delete, then an
     * event's add beside it; the first race that breaks a rule gives the verdict.
     */
    public static Verdict runDatabase(String databaseClass) throws Exception {
        // the driver by name only: a student copy of the calendar lab withholds the database (it needs the lab's
        // answer, EventStore) and its driver, and this class must compile without them

        Verdict v = null;
        java.util.Map<String, Number> total = new java.util.LinkedHashMap<>();  // the searches' counts, added up
        for (String race : List.of("join", "add")) {
            v = explore(new Verdict("jpf", databaseClass.substring(databaseClass.lastIndexOf('.') + 1)),
                    DATABASE_DRIVER, databaseClass + "," + race);
            for (Map.Entry<String, Object> e : v.stats.entrySet()) {
                String k = e.getKey();
                if (e.getValue() instanceof Double) {
                    total.merge(k, (Double) e.getValue(), (x, y) -> x.doubleValue() + y.doubleValue());
                } else if (e.getValue() instanceof Number) {
                    total.merge(k, (Number) e.getValue(), (x, y) -> k.equals("maxDepth")
                            ? Math.max(x.longValue(), y.longValue()) : x.longValue() + y.longValue());
                }
            }
            if (!v.verdict.equals("pass")) {
                break;
            }
        }
        v.stats.putAll(total);
        return v;
    }

    private static String ids(CheckProfile profile) {
        StringBuilder sb = new StringBuilder();
        for (int id : profile.jpfIds) {
            sb.append(sb.length() == 0 ? "" : "/").append(id);
        }
        return sb.toString();
    }

    /** JPF on any program of the checks module: {@code JpfCheck CLASS [ARGS]} prints the verdict as JSON. */
    public static void main(String[] args) throws Exception {
        String target = args.length > 0 ? args[0] : NotifyWitness.class.getName();
        Verdict v = explore(new Verdict("jpf", target.substring(target.lastIndexOf('.') + 1)), target,
                args.length > 1 ? args[1] : "");
        System.out.println(v.toJson());
    }

    static Verdict explore(Verdict v, String target, String targetArgs) throws Exception {
        String home = System.getenv("JPF_HOME");
        File jar = home == null ? null : new File(home, "build/jpf.jar");
        if (jar == null || !jar.isFile()) {
            v.verdict = "skip";
            v.detail = (home == null ? "JPF_HOME is not set. " : "JPF_HOME=" + home + " has no build/jpf.jar. ") + HOWTO;
            return v;
        }
        Path site = Files.createTempFile("jpf-site", ".properties");
        Files.write(site, List.of("jpf-core = " + new File(home).getAbsolutePath(), "extensions = ${jpf-core}"));
        String[] args = {
            "+site=" + site,
            "+classpath=" + ownClasspath(),
            "+sourcepath=" + ownSources(),  // so that traces show source lines
            "+target=" + target,
            "+target.args=" + targetArgs,
            "+search.multiple_errors=false",
            "+report.console.property_violation=error,trace",
            "+vm.enable_assertions=handofflab.*",  // the kit's own asserts (the PHT's probe bound), in JPF only
            "+cg.enumerate_random=true",  // java.util.Random's draws (the PHT's probe start) become JPF choices
            "+listener=gov.nasa.jpf.listener.BudgetChecker",
            "+budget.max_state=" + MAX_STATES,
        };
        Path listenerDir = compileListener(jar);  // null: no compiler here, and no shared-state column
        URL[] urls = listenerDir == null ? new URL[] {jar.toURI().toURL()}
                : new URL[] {jar.toURI().toURL(), listenerDir.toUri().toURL()};
        try (URLClassLoader loader = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
            Class<?> jpfClass = loader.loadClass("gov.nasa.jpf.JPF");
            Object conf = jpfClass.getMethod("createConfig", String[].class).invoke(null, (Object) args);
            Object jpf = jpfClass.getConstructor(loader.loadClass("gov.nasa.jpf.Config")).newInstance(conf);
            Object state = null;
            if (listenerDir != null) {
                state = loader.loadClass("handofflab.checks.jpf.SharedState").getConstructor().newInstance();
                jpfClass.getMethod("addListener", loader.loadClass("gov.nasa.jpf.JPFListener")).invoke(jpf, state);
            }
            long start = System.nanoTime();
            jpfClass.getMethod("run").invoke(jpf);
            v.stats.put("seconds", (System.nanoTime() - start) / 1e9);
            statistics(jpf, v);
            Object search = jpfClass.getMethod("getSearch").invoke(jpf);
            String limit = (String) search.getClass().getMethod("getLastSearchConstraint").invoke(search);
            boolean found = (Boolean) jpfClass.getMethod("foundErrors").invoke(jpf);
            String property = found ? firstProperty(jpf) : "";
            String noVerdict = whyNoVerdict(((Number) v.stats.getOrDefault("newStates", 0)).longValue(), limit, property);
            if (noVerdict != null) {
                v.verdict = "incomplete";
                v.detail = noVerdict;
            } else if (found) {
                describe(jpf, v, state == null ? null : (List<?>) state.getClass().getField("errorPath").get(state));
            } else {
                v.detail = "every interleaving explored: no deadlock, " + (target.equals(StoreJpfDriver.class.getName())
                        ? "and every outcome one of the six orderings"
                        : target.equals(DATABASE_DRIVER)
                        ? "no reference to a deleted entity, and every outcome one of the six orderings" : "exactly-once holds");
            }
        } finally {
            Files.deleteIfExists(site);
        }
        return v;
    }

    /**
     * Why a finished JPF run gives no verdict, or null when it gives one. A search that explored
     * nothing (the driver or the class under check did not load: JPF only logs it) or that stopped
     * at a limit (the state budget, memory) has not seen every interleaving: never a pass. An
     * error found before the limit is still a verdict; running out of memory is not one.
     */
    static String whyNoVerdict(long newStates, String limit, String property) {
        if (newStates == 0) {
            return "JPF explored no state: it could not start the program (a class that did not load? "
                    + "see JPF's log above); not a pass";
        }
        if (property.contains("OutOfMemory") || (property.isEmpty() && limit != null)) {
            return "JPF stopped before it had explored every interleaving (" + (limit == null ? property : limit)
                    + ", after " + newStates + " states); not a pass. Give it more memory or a smaller profile";
        }
        return null;
    }

    private static String firstProperty(Object jpf) throws ReflectiveOperationException {
        List<?> errors = (List<?>) jpf.getClass().getMethod("getSearchErrors").invoke(jpf);
        return errors.isEmpty() ? "" : errors.get(0).getClass().getMethod("getProperty").invoke(errors.get(0)).getClass().getSimpleName();
    }

    /** The classes JPF must load: this module, the handoffs and the calendar store, from our own class path. */
    static String ownClasspath() {
        List<String> mine = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.contains("handoffs") || entry.contains("checks") || entry.contains("calendar")) {
                mine.add(entry);
            }
        }
        return String.join(",", mine);
    }

    /** The source folders beside our class folders or jars (module/target/x -> module/src/main/java). */
    static String ownSources() {
        List<String> sources = new ArrayList<>();
        for (String entry : ownClasspath().split(",")) {
            File target = new File(entry).getAbsoluteFile().getParentFile();  // both target/classes and target/x.jar
            sources.add(new File(target.getParentFile(), "src/main/java").getPath());
        }
        return String.join(",", sources);
    }

    private static void statistics(Object jpf, Verdict v) {
        try {
            Object reporter = jpf.getClass().getMethod("getReporter").invoke(jpf);
            Object stats = reporter.getClass().getMethod("getStatistics").invoke(reporter);
            for (String field : new String[] {"newStates", "visitedStates", "maxDepth"}) {
                v.stats.put(field, stats.getClass().getField(field).get(stats));
            }
        } catch (ReflectiveOperationException e) {
            v.stats.put("statistics", "unavailable: " + e);
        }
    }

    /** JPF's first error: its property decides the verdict; its path becomes swimlanes. */
    private static void describe(Object jpf, Verdict v, List<?> writes) throws ReflectiveOperationException {
        List<?> errors = (List<?>) jpf.getClass().getMethod("getSearchErrors").invoke(jpf);
        Object error = errors.get(0);
        String property = error.getClass().getMethod("getProperty").invoke(error).getClass().getSimpleName();
        String details = String.valueOf(error.getClass().getMethod("getDetails").invoke(error));
        v.trace = details;
        if (property.contains("Deadlock")) {
            v.verdict = "deadlock";
            v.detail = "JPF: every thread is waiting (" + property + ")";
        } else {
            int colon = details.indexOf("AssertionError: ");
            String rest = colon >= 0 ? details.substring(colon + 16) : details;
            v.verdict = "violation:" + rest.split(":")[0].trim();
            v.detail = rest.lines().findFirst().orElse(rest);
        }
        Object path = error.getClass().getMethod("getPath").invoke(error);
        Map<String, String> lastLine = new LinkedHashMap<>();
        List<String> lanes = new ArrayList<>();        // one row per run of transitions by one thread
        List<List<String>> rows = new ArrayList<>();
        List<String> choices = new ArrayList<>();
        List<Map<String, String>> states = new ArrayList<>();  // the fields each row wrote, last value wins
        int size = (Integer) path.getClass().getMethod("size").invoke(path);
        boolean aligned = writes != null && writes.size() == size;  // one entry per transition, or none shown
        int t = -1;
        for (Object transition : (Iterable<?>) path) {
            t++;
            Object info = transition.getClass().getMethod("getThreadInfo").invoke(transition);
            String thread = String.valueOf(info.getClass().getMethod("getName").invoke(info));
            List<String> lines = kitLines(transition);
            if (!lines.isEmpty() && lines.get(0).equals(lastLine.get(thread))) {
                lines.remove(0);  // a transition starts again at the line where the thread was switched out
            }
            String chose = choice(transition);
            if (lines.isEmpty() && chose.isEmpty()) {
                continue;
            }
            boolean same = !lanes.isEmpty() && lanes.get(lanes.size() - 1).equals(thread);
            if (!same) {  // another thread ran in between: a new row
                lanes.add(thread);
                rows.add(new ArrayList<>());
                choices.add("");
                states.add(new LinkedHashMap<>());
            }
            int last = rows.size() - 1;
            for (String line : lines) {  // a line repeated later (a second put) stays: only a run of one collapses
                List<String> row = rows.get(last);
                if (row.isEmpty() || !row.get(row.size() - 1).equals(line)) {
                    row.add(line);
                }
            }
            if (!chose.isEmpty()) {
                choices.set(last, (choices.get(last).isEmpty() ? "" : choices.get(last) + "; ") + chose);
            }
            if (aligned) {
                for (Object write : (List<?>) writes.get(t)) {
                    String[] w = String.valueOf(write).split("\\|", 3);  // owner|field|value
                    states.get(last).put(owner(w[0], writes) + w[1], w[2]);
                }
            }
            if (!lines.isEmpty()) {
                lastLine.put(thread, lines.get(lines.size() - 1));
            }
        }
        for (int i = 0; i < rows.size(); i++) {
            List<String> lines = rows.get(i);
            String action = String.join("; ", lines);
            if (lines.size() > MAX_LINES_PER_STEP) {  // how the run began, and where it was switched out
                int tail = MAX_LINES_PER_STEP - 2;
                action = String.join("; ", lines.subList(0, 2)) + "; ... " + (lines.size() - MAX_LINES_PER_STEP)
                        + " lines ...; " + String.join("; ", lines.subList(lines.size() - tail, lines.size()));
            }
            List<String> shared = new ArrayList<>();
            states.get(i).forEach((field, value) -> shared.add(field + " = " + value));
            String state = String.join(", ", shared);
            String chose = choices.get(i);
            v.steps.add(new String[] {lanes.get(i), action, chose.isEmpty() ? state : state.isEmpty() ? chose : state + "; " + chose});
        }
        // where each thread ended: its state in JPF's deadlock report (WAITING, BLOCKED, ...) at its last line
        Matcher m = Pattern.compile("name:([^,}]+),status:(\\w+)").matcher(details);
        Map<String, String> status = new LinkedHashMap<>();
        while (m.find()) {
            status.put(m.group(1), m.group(2));
        }
        for (Map.Entry<String, String> e : lastLine.entrySet()) {
            String state = status.getOrDefault(e.getKey(), status.isEmpty() ? "" : "TERMINATED");
            v.ending.put(e.getKey(), (state.isEmpty() ? "last at " : state + " at ") + e.getValue());
        }
    }

    static final int MAX_LINES_PER_STEP = 8;

    /**
     * How a field's owner is shown: by the handoff's field that holds it ("free." for the
     * Permits in `free`), by nothing when it is the only object of its class written on the path
     * (the handoff's own `count`), else by class and JPF's object number (SynchronizedRef@845.).
     */
    private static String owner(String label, List<?> writes) {
        int at = label.indexOf('@');
        if (at < 0) {
            return label.isEmpty() ? "" : label + ".";
        }
        String type = label.substring(0, at);
        long objects = writes.stream().flatMap(ws -> ((List<?>) ws).stream()).map(w -> String.valueOf(w).split("\\|")[0])
                .filter(l -> l.startsWith(type + "@")).distinct().count();
        return objects == 1 ? "" : label + ".";
    }

    /**
     * Compiles the SharedState listener (a resource) against this JPF_HOME's jpf.jar: JPF is in no
     * registry, so the kit cannot compile against it at build time. Null when this JVM has no
     * compiler (a JRE) or the source does not compile against this JPF; the swimlanes then show
     * no shared state, and say nothing false.
     */
    static Path compileListener(File jar) {
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            return null;
        }
        try (java.io.InputStream in = JpfCheck.class.getResourceAsStream("SharedState.java.txt")) {
            Path dir = Files.createTempDirectory("jpf-listener");
            Path source = dir.resolve("SharedState.java");
            Files.write(source, in.readAllBytes());
            java.io.ByteArrayOutputStream said = new java.io.ByteArrayOutputStream();
            int rc = javac.run(null, said, said, "-nowarn", "-cp", jar.getPath(), "-d", dir.toString(), source.toString());
            if (rc != 0) {
                System.err.println("JPF's shared-state listener did not compile against " + jar + ":\n" + said);
                return null;
            }
            return dir;
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The source lines a transition ran in the kit's own classes (the class under check, its
     * parents, the driver), each once in order: JPF's trace, not a filter on file names.
     */
    private static List<String> kitLines(Object transition) throws ReflectiveOperationException {
        List<String> lines = new ArrayList<>();
        String previous = "";
        for (Object step : (Iterable<?>) transition) {
            String where = String.valueOf(step.getClass().getMethod("getLocationString").invoke(step));
            if (!where.contains("handofflab/") || where.equals(previous)) {
                continue;
            }
            previous = where;
            Object src = step.getClass().getMethod("getLineString").invoke(step);
            if (src == null || String.valueOf(src).isBlank()) {
                continue;  // no source line (a synthetic step): nothing to show
            }
            String line = String.valueOf(src).trim() + "  (" + where.substring(where.lastIndexOf('/') + 1) + ")";
            if (lines.isEmpty() || !lines.get(lines.size() - 1).equals(line)) {
                lines.add(line);
            }
        }
        return lines;
    }

    /** What JPF chose at the start of a transition, when it was a value (a random draw), not a thread. */
    private static String choice(Object transition) {
        try {
            Object cg = transition.getClass().getMethod("getChoiceGenerator").invoke(transition);
            Object next = cg.getClass().getMethod("getNextChoice").invoke(cg);
            return next instanceof Number ? "JPF chose " + next + " (" + cg.getClass().getMethod("getId").invoke(cg) + ")" : "";
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "";
        }
    }
}
