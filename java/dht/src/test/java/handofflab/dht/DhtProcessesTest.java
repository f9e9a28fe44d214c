package handofflab.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The distributed table as the paper runs it: p separate JVM processes, here on loopback. */
class DhtProcessesTest {
    @TempDir
    Path dir;

    /** p DhtMain processes on free loopback ports; each one's standard output and error in dir. */
    List<Process> launch(int p, String... workload) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        StringBuilder peers = new StringBuilder();
        for (int i = 0; i < p; i++) {
            ServerSocket s = new ServerSocket(0);
            held.add(s);
            peers.append(i == 0 ? "" : ",").append("127.0.0.1:").append(s.getLocalPort());
        }
        for (ServerSocket s : held) {
            s.close();  // free again; a port another program takes meanwhile fails loudly ("cannot listen on")
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        String classes = new File(DhtMain.class.getProtectionDomain().getCodeSource().getLocation().getPath()).getPath();
        List<Process> procs = new ArrayList<>();
        for (int i = 0; i < p; i++) {
            List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", classes, DhtMain.class.getName(),
                    "--id", String.valueOf(i), "--peers", peers.toString(), "--connect-seconds", "60"));
            cmd.addAll(List.of(workload));
            procs.add(new ProcessBuilder(cmd).redirectOutput(dir.resolve("out" + i).toFile())
                    .redirectError(dir.resolve("err" + i).toFile()).start());
        }
        return procs;
    }

    String read(String name) throws IOException {
        return Files.readString(dir.resolve(name), StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void threeProcessesStoreFindAndDeleteOneHundredThousandValuesEachExactlyOnce() throws Exception {
        List<Process> procs = launch(3, "--values", "33334", "--n", "1", "--L", "100", "--q", "4");
        long values = 0;
        for (int i = 0; i < procs.size(); i++) {
            int exit = procs.get(i).waitFor();
            String out = read("out" + i);
            assertEquals(0, exit, "process " + i + ": " + out + read("err" + i));
            assertTrue(out.contains("\"wrong\": 0,"), out);
            Matcher m = Pattern.compile("\"values\": (\\d+)").matcher(out);
            assertTrue(m.find(), out);
            values += Long.parseLong(m.group(1));
        }
        assertTrue(values >= 100_000, "values inserted, found and deleted: " + values);
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aTargetKilledMidRunGivesAClearErrorAtEveryOrigin() throws Exception {
        // a run far too long to end by itself within this test: every request waited for alone (L = 1)
        List<Process> procs = launch(3, "--values", "5000000", "--n", "1", "--L", "1");
        for (int i = 0; i < 3; i++) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!read("err" + i).contains("connected to all 3 processes")) {
                assertTrue(procs.get(i).isAlive(), "process " + i + " ended before connecting: " + read("err" + i));
                assertTrue(System.nanoTime() < deadline, "process " + i + " did not connect: " + read("err" + i));
                Thread.sleep(20);
            }
        }
        procs.get(2).destroyForcibly().waitFor();
        for (int i = 0; i < 2; i++) {
            int exit = procs.get(i).waitFor();
            String err = read("err" + i);
            assertEquals(3, exit, "process " + i + ": " + read("out" + i) + err);
            assertTrue(err.contains("target 2 (127.0.0.1:") || err.contains("process 2 ended before it reached the barrier"),
                    err);
            assertTrue(err.contains("may or may not have been applied") || err.contains("is gone")
                    || err.contains("barrier"), err);
        }
    }
}
