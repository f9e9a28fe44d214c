package handofflab.servers;

import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** What one run of the load client ({@link LoadClient}) measured. Latencies are in microseconds, successful requests only. */
public record LoadReport(String host, int port, int children, int requests, long millis, long elapsedNanos, long ok,
                         Map<String, Long> errors, long duplicated, Histogram latency, List<String> examples,
                         int silent, int silentCut, long idleMs) {

    public long total() {
        return (long) children * requests;
    }

    /** Requests that got no correct reply: refused, reset, timed out, cut short or answered wrongly. */
    public long lost() {
        return total() - ok - unsent();
    }

    /** Requests never sent: the run stopped at its first failure ({@link LoadClient#STOP_ON_FAILURE}). */
    public long unsent() {
        return errors.getOrDefault(LoadClient.UNSENT, 0L);
    }

    public boolean exactlyOnce() {
        return ok == total() && duplicated == 0;
    }

    public double seconds() {
        return elapsedNanos / 1e9;
    }

    public String text() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%d children x %d requests = %d requests to %s:%d, t_r = %s%s%n", children, requests,
                total(), host, port, millis >= 0 ? millis + " ms" : "the server's default",
                idleMs > 0 ? ", each client idle " + idleMs + " ms between its connect and its request" : ""));
        sb.append(String.format("total time      %.3f s%n", seconds()));
        sb.append(String.format("throughput      %.1f requests/s%n", ok / Math.max(1e-9, seconds())));
        if (latency.getTotalCount() > 0) {
            sb.append(String.format("latency (ms)    p50 %.2f   p90 %.2f   p99 %.2f   max %.2f%n",
                    latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(90) / 1e3,
                    latency.getValueAtPercentile(99) / 1e3, latency.getMaxValue() / 1e3));
        }
        sb.append(String.format("answered once   %d of %d%n", ok, total()));
        sb.append(String.format("lost            %d%s%n", lost(), lost() > 0 ? "   <- requests with no correct reply" : ""));
        sb.append(String.format("duplicated      %d%s%n", duplicated, duplicated > 0 ? "   <- ids answered more than once" : ""));
        errors.forEach((kind, n) -> sb.append(String.format("  error: %-14s %d%n", kind, n)));
        if (silent > 0) {
            sb.append(String.format("silent          %d connections sent nothing; the server cut %d of them before the"
                    + " last reply%n", silent, silentCut));
        }
        for (String e : examples) {
            sb.append("  e.g. ").append(e).append('\n');
        }
        return sb.toString();
    }

    public String json() {
        StringBuilder sb = new StringBuilder("{");
        sb.append(String.format("\"host\": \"%s\", \"port\": %d, \"children\": %d, \"requests\": %d, \"millis\": %d, ",
                host, port, children, requests, millis));
        sb.append(String.format("\"total\": %d, \"ok\": %d, \"lost\": %d, \"duplicated\": %d, \"seconds\": %.6f, ",
                total(), ok, lost(), duplicated, seconds()));
        sb.append(String.format("\"throughput\": %.3f, ", ok / Math.max(1e-9, seconds())));
        for (int p : new int[] {50, 90, 99}) {
            sb.append(String.format("\"p%d_ms\": %.3f, ", p, latency.getValueAtPercentile(p) / 1e3));
        }
        sb.append(String.format("\"silent\": %d, \"silent_cut\": %d, \"idle_ms\": %d, ", silent, silentCut, idleMs));
        sb.append(String.format("\"max_ms\": %.3f, \"errors\": {", latency.getMaxValue() / 1e3));
        int i = 0;
        for (Map.Entry<String, Long> e : errors.entrySet()) {
            sb.append(i++ > 0 ? ", " : "").append('"').append(e.getKey()).append("\": ").append(e.getValue());
        }
        return sb.append("}}").toString();
    }
}
