package handofflab.checks;

import handofflab.handoffs.CheckProfile;
import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
            + "Build jpf-core yourself (its README: ./gradlew buildJars), then export JPF_HOME=/path/to/jpf-core "
            + "(the folder holding build/jpf.jar) and run ./lab check java --jpf.";

    private JpfCheck() {
    }

    public static Verdict run(String name, CheckProfile profile) throws Exception {
        Verdict v = new Verdict("jpf", name);
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
            "+target=" + JpfDriver.class.getName(),
            "+target.args=" + name + "," + profile.size + "," + profile.jpfAcceptors,  // JPF splits them at commas
            "+search.multiple_errors=false",
            "+report.console.property_violation=error,trace",
        };
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toURI().toURL()}, ClassLoader.getPlatformClassLoader())) {
            Class<?> jpfClass = loader.loadClass("gov.nasa.jpf.JPF");
            Object conf = jpfClass.getMethod("createConfig", String[].class).invoke(null, (Object) args);
            Object jpf = jpfClass.getConstructor(loader.loadClass("gov.nasa.jpf.Config")).newInstance(conf);
            long start = System.nanoTime();
            jpfClass.getMethod("run").invoke(jpf);
            v.stats.put("seconds", (System.nanoTime() - start) / 1e9);
            statistics(jpf, v);
            boolean found = (Boolean) jpfClass.getMethod("foundErrors").invoke(jpf);
            if (found) {
                describe(jpf, v);
            } else {
                v.detail = "every interleaving explored: no deadlock, exactly-once holds";
            }
        } finally {
            Files.deleteIfExists(site);
        }
        return v;
    }

    /** The classes JPF must load: this module and the handoffs, from our own class path. */
    static String ownClasspath() {
        List<String> mine = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.contains("handoffs") || entry.contains("checks")) {
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
    private static void describe(Object jpf, Verdict v) throws ReflectiveOperationException {
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
        for (Object transition : (Iterable<?>) path) {
            Object info = transition.getClass().getMethod("getThreadInfo").invoke(transition);
            String thread = String.valueOf(info.getClass().getMethod("getName").invoke(info));
            String line = "";
            for (Object step : (Iterable<?>) transition) {
                Method loc = step.getClass().getMethod("getLocationString");
                String where = String.valueOf(loc.invoke(step));
                if (where.contains("Buffer.java") || where.contains("JpfDriver.java")) {
                    Object src = step.getClass().getMethod("getLineString").invoke(step);
                    String file = where.substring(where.lastIndexOf('/') + 1);
                    line = (src == null ? "" : String.valueOf(src).trim() + "  ") + "(" + file + ")";
                }
            }
            if (!line.isEmpty()) {
                v.steps.add(new String[] {thread, line, ""});
            }
        }
    }
}
