package handofflab.jcstress;

import handofflab.checks.Verdict;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.openjdk.jcstress.JCStress;
import org.openjdk.jcstress.Options;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.infra.Status;
import org.openjdk.jcstress.infra.runners.TestList;
import org.openjdk.jcstress.infra.collectors.DiskReadCollector;
import org.openjdk.jcstress.infra.collectors.InProcessCollector;
import org.openjdk.jcstress.infra.collectors.TestResult;
import org.openjdk.jcstress.infra.grading.GradingResult;
import org.openjdk.jcstress.infra.grading.ReportUtils;

/**
 * {@code java -cp jcstress.jar handofflab.jcstress.Verdicts SUBJECT TESTS --out FILE --report DIR [jcstress options]}:
 * runs the jcstress tests whose names match the regexp TESTS on the handoff class SUBJECT (every fork gets
 * {@code -Dhandofflab.jcstress.subject=SUBJECT}), then reads jcstress's own result file and writes the kit's verdict
 * JSON ({@link Verdict}), as every Java checker does. jcstress 0.16 exits 0 whatever its tests found, so the verdict
 * is read from its results, never from its exit: a forbidden outcome observed even once is the verdict its
 * {@code @Outcome} names ("deadlock: ...", "violation:NoLoss: ..."); a test that erred, timed out or never ran is no
 * pass. Exit 0 when a verdict was written, 2 for bad arguments.
 */
public final class Verdicts {
    static final String SUBJECT_PROPERTY = "handofflab.jcstress.subject";

    private Verdicts() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            usage("expected SUBJECT TESTS");
        }
        String subject = args[0], tests = args[1];
        Path out = null, report = null;
        List<String> options = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            if (args[i].equals("--out") && i + 1 < args.length) {
                out = Paths.get(args[++i]);
            } else if (args[i].equals("--report") && i + 1 < args.length) {
                report = Paths.get(args[++i]);
            } else {
                options.add(args[i]);
            }
        }
        if (out == null || report == null) {
            usage("--out FILE and --report DIR are required");
        }
        List<String> jc = new ArrayList<>(Arrays.asList("-t", tests, "-r", report.toString(),
                "-jvmArgsPrepend", "-D" + SUBJECT_PROPERTY + "=" + subject));
        jc.addAll(options);
        Options opts = new Options(jc.toArray(new String[0]));
        if (!opts.parse()) {
            usage("jcstress refused the options " + options);
        }
        Verdict v = new Verdict("jcstress", subject);
        long started = System.nanoTime();
        try {
            new JCStress(opts).run();
        } catch (AssertionError e) {
            // jcstress's own failure report (ExceptionReportPrinter): the results file says the same, and more
        }
        v.stats.put("seconds", (System.nanoTime() - started) / 1e9);
        judge(v, Paths.get(opts.getResultFile()), report);
        Files.write(out, v.toJson().getBytes(StandardCharsets.UTF_8));
        System.out.println("jcstress " + subject + ": " + v.verdict + " — " + v.detail);
    }

    /** The verdict from jcstress's result file: its tests' observed outcomes, merged over forks and JVM modes. */
    static void judge(Verdict v, Path results, Path report) throws Exception {
        if (!Files.exists(results)) {
            v.verdict = "error:NoResults";
            v.detail = "jcstress wrote no results (" + results + "): it stopped before any test ran; its output says why";
            return;
        }
        InProcessCollector collector = new InProcessCollector();
        DiskReadCollector reader = new DiskReadCollector(results.toString(), collector);
        reader.dump();
        reader.close();
        List<TestResult> merged = ReportUtils.mergedByName(collector.getTestResults());
        if (merged.isEmpty()) {
            v.verdict = "error:NoTests";
            v.detail = "no jcstress test ran on " + v.subject + ": the tests' names did not match, or none was built";
            return;
        }
        StringBuilder table = new StringBuilder("| test | outcome | expected | observed | what it means |\n|---|---|---|---|---|\n");
        long samples = 0;
        TestResult caught = null;
        GradingResult forbidden = null;
        String error = null;
        for (TestResult r : merged) {
            String test = r.getName().substring(r.getName().lastIndexOf('.') + 1);
            if (r.status() != Status.NORMAL) {
                error = error != null ? error : test + ": " + r.status() + (r.getMessages().isEmpty() ? ""
                        : " (" + firstLine(String.join("\n", r.getMessages())) + ")");
                table.append("| ").append(test).append(" | ").append(r.status()).append(" | | | |\n");
                continue;
            }
            samples += r.getTotalCount();
            for (GradingResult g : r.grading().gradingResults.values()) {
                table.append("| ").append(test).append(" | `").append(g.id).append("` | ").append(word(g.expect))
                        .append(" | ").append(String.format(Locale.ROOT, "%,d", g.count)).append(" | ")
                        .append(g.description == null ? "" : g.description.replace("|", "\\|")).append(" |\n");
                if (g.expect == Expect.FORBIDDEN && g.count > 0 && forbidden == null) {
                    caught = r;
                    forbidden = g;
                }
            }
        }
        v.trace = table.toString();
        v.stats.put("samples", samples);
        v.stats.put("tests", merged.size());
        String where = " jcstress's own report: " + report.resolve("index.html") + ".";
        if (forbidden != null) {
            String desc = forbidden.description == null ? "" : forbidden.description;
            int colon = desc.indexOf(": ");
            v.verdict = colon > 0 ? desc.substring(0, colon) : "violation:Forbidden";
            String test = caught.getName().substring(caught.getName().lastIndexOf('.') + 1);
            v.detail = String.format(Locale.ROOT, "%s: the forbidden outcome (%s) was observed %,d times in %,d samples: %s.%s",
                    test, forbidden.id, forbidden.count, caught.getTotalCount(),
                    colon > 0 ? desc.substring(colon + 2) : desc, where);
            lanes(v, caught.getName(), forbidden.id);
        } else if (error != null) {
            v.verdict = "error:" + error.substring(error.indexOf(": ") + 2).split("[ (]")[0];
            v.detail = "jcstress could not judge " + error + "." + where;
        } else {
            v.detail = String.format(Locale.ROOT, "%d tests, %,d samples, no forbidden outcome.%s", merged.size(), samples, where);
        }
    }

    /** The forbidden outcome as swimlane steps: each actor's step (its {@link Lane}) and what it saw, in the order
     *  the test declares its actors. */
    static void lanes(Verdict v, String testClass, String outcome) throws ReflectiveOperationException {
        String[] values = outcome.split(",\\s*");
        Class<?> test = Class.forName(testClass);
        for (String actor : TestList.getInfo(testClass).actorNames()) {
            Method m = Arrays.stream(test.getDeclaredMethods()).filter(x -> x.getName().equals(actor)).findFirst()
                    .orElseThrow(() -> new NoSuchMethodException(testClass + "." + actor));
            Lane lane = m.getAnnotation(Lane.class);
            if (lane == null) {
                v.steps.add(new String[] {actor, actor + "()", ""});
                continue;
            }
            StringBuilder saw = new StringBuilder();
            for (int r : lane.results()) {
                saw.append(saw.length() == 0 ? "" : ", ").append(r - 1 < values.length ? values[r - 1] : "?");
            }
            String action = lane.does() + (lane.sees().isEmpty() ? "" : "; " + String.format(lane.sees(), saw));
            v.steps.add(new String[] {lane.thread(), action, ""});
        }
    }

    /** The first line of a message jcstress kept (a stack trace, once per sample that erred), without its frames. */
    private static String firstLine(String message) {
        StringBuilder said = new StringBuilder();
        for (String part : message.trim().split("\\R")) {  // "Check test failed", then the exception, then its frames
            if (part.trim().startsWith("at ")) {
                break;
            }
            said.append(said.length() == 0 ? "" : " ").append(part.trim());
        }
        String line = said.toString();
        return line.length() > 300 ? line.substring(0, 300) + "…" : line;
    }

    private static String word(Expect e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    private static void usage(String problem) {
        System.err.println("usage: Verdicts SUBJECT TESTS --out FILE --report DIR [jcstress options]: " + problem);
        System.exit(2);
    }
}
