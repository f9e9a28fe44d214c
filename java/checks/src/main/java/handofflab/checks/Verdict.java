package handofflab.checks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one checker concluded about one handoff class, written as JSON for
 * {@code ./lab check java} to compare with specs/catalog.toml and to draw as
 * swimlanes. Verdict words are the catalog's: {@code pass}, {@code deadlock},
 * {@code violation:<Property>}, or {@code skip} when the checker is not installed.
 */
public final class Verdict {
    public final String checker;
    public final String subject;
    public String verdict = "pass";
    public String detail = "";
    /** The grader's secret for this run (--nonce-stdin), so that it knows who wrote the verdict. */
    public String nonce = "";
    /** The checker's own counterexample text (Lincheck's table, JPF's trace). */
    public String trace = "";
    /** Swimlane steps: {thread, action, state}. */
    public final List<String[]> steps = new ArrayList<>();
    /** Where each thread ended (stuck) when the verdict is a deadlock. */
    public final Map<String, String> ending = new LinkedHashMap<>();
    public final Map<String, Object> stats = new LinkedHashMap<>();

    public Verdict(String checker, String subject) {
        this.checker = checker;
        this.subject = subject;
    }

    public String toJson() {
        StringBuilder sb = new StringBuilder("{");
        field(sb, "checker", checker).append(',');
        field(sb, "nonce", nonce).append(',');
        field(sb, "subject", subject).append(',');
        field(sb, "verdict", verdict).append(',');
        field(sb, "detail", detail).append(',');
        field(sb, "trace", trace).append(",\"steps\":[");
        for (int i = 0; i < steps.size(); i++) {
            String[] s = steps.get(i);
            sb.append(i == 0 ? "[" : ",[").append(str(s[0])).append(',').append(str(s[1])).append(',')
                    .append(str(s[2])).append(']');
        }
        sb.append("],\"ending\":{");
        int i = 0;
        for (Map.Entry<String, String> e : ending.entrySet()) {
            sb.append(i++ == 0 ? "" : ",").append(str(e.getKey())).append(':').append(str(e.getValue()));
        }
        sb.append("},\"stats\":{");
        i = 0;
        for (Map.Entry<String, Object> e : stats.entrySet()) {
            Object v = e.getValue();
            sb.append(i++ == 0 ? "" : ",").append(str(e.getKey())).append(':')
                    .append(v instanceof Number ? v.toString() : str(String.valueOf(v)));
        }
        return sb.append("}}").toString();
    }

    private static StringBuilder field(StringBuilder sb, String k, String v) {
        return sb.append(str(k)).append(':').append(str(v));
    }

    static String str(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        return sb.append('"').toString();
    }
}
