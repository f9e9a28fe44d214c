package handofflab.checks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * JPF's first error, read into a verdict: its property decides the verdict, its path becomes swimlanes (one row
 * per run of transitions by one thread, with the shared fields the run wrote and the values JPF chose), and its
 * report says where each thread ended. JPF is loaded reflectively ({@link JpfCheck}), so it is read reflectively too.
 */
final class JpfTrace {
    static final int MAX_LINES_PER_STEP = 8;

    // One row per run of transitions by one thread: the four lists always have the same length.
    private final List<String> lanes = new ArrayList<>();
    private final List<List<String>> rows = new ArrayList<>();
    private final List<String> choices = new ArrayList<>();
    private final List<Map<String, String>> states = new ArrayList<>();  // the fields each row wrote, last value wins
    /** Each thread's last line shown, in the order the threads first showed one. */
    private final Map<String, String> lastLine = new LinkedHashMap<>();

    private JpfTrace() {
    }

    /** JPF's first error: its property decides the verdict; its path becomes swimlanes. */
    static void describe(Object jpf, Verdict v, List<?> writes) throws ReflectiveOperationException {
        List<?> errors = (List<?>) jpf.getClass().getMethod("getSearchErrors").invoke(jpf);
        Object error = errors.get(0);
        String property = error.getClass().getMethod("getProperty").invoke(error).getClass().getSimpleName();
        String details = String.valueOf(error.getClass().getMethod("getDetails").invoke(error));
        v.trace = details;
        verdict(v, property, details);
        Object path = error.getClass().getMethod("getPath").invoke(error);
        JpfTrace trace = new JpfTrace();
        trace.walk(path, writes);
        trace.steps(v);
        trace.endings(v, details);
    }

    private static void verdict(Verdict v, String property, String details) {
        if (property.contains("Deadlock")) {
            v.verdict = "deadlock";
            v.detail = "JPF: every thread is waiting (" + property + ")";
        } else {
            int colon = details.indexOf("AssertionError: ");
            String rest = colon >= 0 ? details.substring(colon + 16) : details;
            v.verdict = "violation:" + rest.split(":")[0].trim();
            v.detail = rest.lines().findFirst().orElse(rest);
        }
    }

    /** Puts each transition of the error's path on its thread's row; {@code writes}: the listener's, or null. */
    private void walk(Object path, List<?> writes) throws ReflectiveOperationException {
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
            int last = rowFor(thread);
            addLines(last, lines);
            if (!chose.isEmpty()) {
                choices.set(last, (choices.get(last).isEmpty() ? "" : choices.get(last) + "; ") + chose);
            }
            if (aligned) {
                addWrites(last, (List<?>) writes.get(t), writes);
            }
            if (!lines.isEmpty()) {
                lastLine.put(thread, lines.get(lines.size() - 1));
            }
        }
    }

    /** The row a run of {@code thread} goes on: the last row if it is that thread's, else a new one. */
    private int rowFor(String thread) {
        boolean same = !lanes.isEmpty() && lanes.get(lanes.size() - 1).equals(thread);
        if (!same) {  // another thread ran in between: a new row
            lanes.add(thread);
            rows.add(new ArrayList<>());
            choices.add("");
            states.add(new LinkedHashMap<>());
        }
        return rows.size() - 1;
    }

    private void addLines(int last, List<String> lines) {
        for (String line : lines) {  // a line repeated later (a second put) stays: only a run of one collapses
            List<String> row = rows.get(last);
            if (row.isEmpty() || !row.get(row.size() - 1).equals(line)) {
                row.add(line);
            }
        }
    }

    /** The shared fields one transition wrote, onto its row's state. */
    private void addWrites(int last, List<?> written, List<?> writes) {
        for (Object write : written) {
            String[] w = String.valueOf(write).split("\\|", 3);  // owner|field|value
            states.get(last).put(owner(w[0], writes) + w[1], w[2]);
        }
    }

    /** The rows as the verdict's swimlane steps: thread, action, and the state the row left and what JPF chose. */
    private void steps(Verdict v) {
        for (int i = 0; i < rows.size(); i++) {
            List<String> shared = new ArrayList<>();
            states.get(i).forEach((field, value) -> shared.add(field + " = " + value));
            String state = String.join(", ", shared);
            String chose = choices.get(i);
            v.steps.add(new String[] {lanes.get(i), action(rows.get(i)),
                chose.isEmpty() ? state : state.isEmpty() ? chose : state + "; " + chose});
        }
    }

    private static String action(List<String> lines) {
        String action = String.join("; ", lines);
        if (lines.size() > MAX_LINES_PER_STEP) {  // how the run began, and where it was switched out
            int tail = MAX_LINES_PER_STEP - 2;
            action = String.join("; ", lines.subList(0, 2)) + "; ... " + (lines.size() - MAX_LINES_PER_STEP)
                    + " lines ...; " + String.join("; ", lines.subList(lines.size() - tail, lines.size()));
        }
        return action;
    }

    private void endings(Verdict v, String details) {
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
