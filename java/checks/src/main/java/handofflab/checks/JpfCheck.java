package handofflab.checks;

import handofflab.handoffs.CheckProfile;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

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
        Map<String, Number> total = new LinkedHashMap<>();  // the searches' counts, added up
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
                JpfTrace.describe(jpf, v, state == null ? null : (List<?>) state.getClass().getField("errorPath").get(state));
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

    /**
     * Compiles the SharedState listener (a resource) against this JPF_HOME's jpf.jar: JPF is in no
     * registry, so the kit cannot compile against it at build time. Null when this JVM has no
     * compiler (a JRE) or the source does not compile against this JPF; the swimlanes then show
     * no shared state, and say nothing false.
     */
    static Path compileListener(File jar) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            return null;
        }
        try (InputStream in = JpfCheck.class.getResourceAsStream("SharedState.java.txt")) {
            Path dir = Files.createTempDirectory("jpf-listener");
            Path source = dir.resolve("SharedState.java");
            Files.write(source, in.readAllBytes());
            ByteArrayOutputStream said = new ByteArrayOutputStream();
            int rc = javac.run(null, said, said, "-nowarn", "-cp", jar.getPath(), "-d", dir.toString(), source.toString());
            if (rc != 0) {
                System.err.println("JPF's shared-state listener did not compile against " + jar + ":\n" + said);
                return null;
            }
            return dir;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
