package handofflab.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import handofflab.handoffs.CheckProfile;
import handofflab.handoffs.Handoff;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recorder tells a hang and a spin from a busy machine by thread states and its clock, never by
 * the time alone: a hang or a spin of the class is named (and the run so far judged), and only calls
 * that keep happening past the time give "incomplete" (the grader then gives more time, never a mark).
 */
class TraceRecordTest {
    private static final CheckProfile ONE_SLOT = CheckProfile.parse("size=1;sized_by=slots;bounded=true;acceptors=1");

    /** Takes wait for ever: the first take never returns, and every thread ends up waiting. */
    public static final class NeverGives implements Handoff<Integer> {
        public NeverGives(int size) {
        }

        @Override
        public synchronized void put(Integer item) {
        }

        @Override
        public synchronized Integer take() throws InterruptedException {
            while (true) {
                wait();
            }
        }
    }

    /** A take that loops without end and without waiting, as a probe sequence that misses every slot does. */
    public static final class Spins implements Handoff<Integer> {
        private volatile boolean never;

        public Spins(int size) {
        }

        @Override
        public void put(Integer item) {
        }

        @Override
        public Integer take() {
            while (!never) {
                Thread.onSpinWait();
            }
            return 0;
        }
    }

    /** A starter's take: it throws, as no design does. */
    public static final class Throws implements Handoff<Integer> {
        public Throws(int size) {
        }

        @Override
        public void put(Integer item) {
        }

        @Override
        public Integer take() {
            throw new UnsupportedOperationException("not written yet");
        }
    }

    @Test
    void aCallThatThrowsIsRecordedForTheTraceSpecToRefuse(@TempDir Path dir) throws Exception {
        Verdict v = TraceRecord.run(Throws.class.getName(), ONE_SLOT, 2, 20, dir.resolve("run.csv"));
        assertEquals("recorded", v.verdict, v.detail);  // each thread ended: the run is through
        List<String> lines = Files.readAllLines(dir.resolve("run.csv"));
        assertTrue(lines.stream().anyMatch(l -> l.endsWith(",1,threw,take,0,-1")), String.join("\n", lines));
    }

    @Test
    void aHangIsNamedAsSoonAsEveryThreadWaits(@TempDir Path dir) throws Exception {
        long start = System.nanoTime();
        Verdict v = TraceRecord.run(NeverGives.class.getName(), ONE_SLOT, 2, 20, dir.resolve("run.csv"));
        assertEquals("deadlock", v.verdict, v.detail);
        assertTrue(System.nanoTime() - start < 15_000_000_000L, "named long before the 20 s limit");
        List<String> lines = Files.readAllLines(dir.resolve("run.csv"));
        assertEquals("clock,thread,kind,op,id,slot", lines.get(0));
        assertTrue(lines.stream().anyMatch(l -> l.endsWith(",0,end,put,200,-1")), "what the run did is kept to be judged");
    }

    @Test
    void aSpinIsNamedNotTakenForABusyMachine(@TempDir Path dir) throws Exception {
        Verdict v = TraceRecord.run(Spins.class.getName(), ONE_SLOT, 2, 60, dir.resolve("run.csv"));
        assertEquals("livelock", v.verdict, v.detail);
        assertTrue(v.detail.contains("no call began or returned"), v.detail);
    }

    /** A recorded run of one of the kit's handoffs that ends (every thread through): its CSV lines. */
    private static List<String> recorded(String handoff, CheckProfile profile, Path file) throws Exception {
        assertEquals("recorded", TraceRecord.run("handofflab.handoffs." + handoff, profile, 2, 20, file).verdict);
        return Files.readAllLines(file);
    }

    /** How many events of a recorded run match {@code regex} (clock,thread,kind,op,id,slot). */
    private static long count(List<String> log, String regex) {
        return log.stream().filter(l -> l.matches(regex)).count();
    }

    @Test
    void theKitsHashTableLogsItsSlotStepsAndAStudentsClassOnlyItsCalls(@TempDir Path dir) throws Exception {
        CheckProfile pht = CheckProfile.parse("size=3;sized_by=slots;bounded=true;acceptors=1");
        List<String> kit = recorded("ParallelHashTable", pht, dir.resolve("kit.csv"));
        // The acceptor reads and fills slots; a worker only swaps a slot with null (steps as clock,thread,kind,op,id,slot)
        List<String> workerSteps = kit.stream().filter(l -> l.contains(",slot,") && !l.split(",")[1].equals("0"))
                .map(l -> l.split(",")[2]).distinct().collect(Collectors.toList());
        assertEquals(List.of("swap"), workerSteps, String.join("\n", kit.subList(0, Math.min(40, kit.size()))));
        assertEquals(200, count(kit, "\\d+,0,set,slot,\\d+,[0-2]"), "one set per put");
        assertEquals(200, count(kit, "\\d+,[1-9]\\d*,swap,slot,[1-9]\\d*,[0-2]"), "one swap that took something out per take");

        assertEquals("recorded", TraceRecord.run(NeverGives.class.getName().replace("NeverGives", "Throws"), ONE_SLOT, 2,
                20, dir.resolve("other.csv")).verdict);
        assertTrue(Files.readAllLines(dir.resolve("other.csv")).stream().skip(1).allMatch(l -> l.endsWith(",-1")),
                "a class outside the kit's handoffs logs no step");
    }

    @Test
    void theKitsPipesLogTheirMarksAndReadsAndAnEarlyFreeShowsInEveryRun(@TempDir Path dir) throws Exception {
        CheckProfile pipes = CheckProfile.parse("size=2;sized_by=workers;bounded=false;acceptors=1");
        List<String> kit = recorded("PipeHandoff", pipes, dir.resolve("pipes.csv"));
        String shown = String.join("\n", kit.subList(0, Math.min(40, kit.size())));
        // one claim per put (the acceptor, lane 0) and one read per take, each naming a worker 0 or 1
        assertEquals(200, count(kit, "\\d+,0,claim,slot,\\d+,[01]"), shown);
        assertEquals(200, count(kit, "\\d+,[1-9]\\d*,read,slot,[1-9]\\d*,[01]"), shown);
        // a worker frees itself only after a read of its own: never before its first one
        for (String worker : List.of("1", "2")) {
            List<String> own = kit.stream().filter(l -> l.split(",")[1].equals(worker) && l.contains(",slot,"))
                    .map(l -> l.split(",")[2]).collect(Collectors.toList());
            assertTrue(own.isEmpty() || own.get(0).equals("read"), worker + ": " + own.subList(0, Math.min(5, own.size())));
        }

        List<String> early = recorded("PipesEarlyFree", pipes, dir.resolve("early.csv"));
        assertTrue(early.stream().filter(l -> l.contains(",slot,") && !l.split(",")[1].equals("0")).findFirst()
                .map(l -> l.split(",")[2].equals("free")).orElse(false),
                "the slip's first worker step is a free before any read: " + String.join("\n", early.subList(0, 10)));
    }

    @Test
    void theKitsBufferLogsItsEffectsWaitsAndNotifiesInsideItsMonitor(@TempDir Path dir) throws Exception {
        CheckProfile buffer = CheckProfile.parse("size=2;sized_by=slots;bounded=true;acceptors=1");
        List<String> kit = recorded("MonitorBuffer", buffer, dir.resolve("buffer.csv"));
        String shown = String.join("\n", kit.subList(0, Math.min(40, kit.size())));
        assertEquals(200, count(kit, "\\d+,0,insert,slot,[1-9]\\d*,[01]"), shown);
        assertEquals(200, count(kit, "\\d+,[1-9]\\d*,remove,slot,[1-9]\\d*,[01]"), shown);
        assertEquals(400, count(kit, ".*,notifyAll,slot,.*"), "one notifyAll per call");
        assertEquals(count(kit, ".*,woke,.*"), count(kit, ".*,wait,.*"), "every wait of a run that ended woke");

        String hungOrNot = TraceRecord.run("handofflab.handoffs.NotifyBuffer", buffer, 2, 20, dir.resolve("notify.csv")).verdict;
        assertTrue(List.of("recorded", "deadlock").contains(hungOrNot), hungOrNot);  // its lost wake-up hangs some runs
        List<String> notify = Files.readAllLines(dir.resolve("notify.csv"));
        assertTrue(notify.stream().anyMatch(l -> l.contains(",notify,slot,"))
                && notify.stream().noneMatch(l -> l.contains(",notifyAll,")), String.join("\n", notify.subList(0, 12)));
    }

    @Test
    void theKitsQueueLogsEachEndsStepAndTheQueueWithoutADummyWritesTheOtherEnd(@TempDir Path dir) throws Exception {
        CheckProfile queue = CheckProfile.parse("size=1;sized_by=slots;bounded=false;acceptors=1");
        List<String> kit = recorded("TwoLockQueue", queue, dir.resolve("queue.csv"));
        assertEquals(200, count(kit, "\\d+,0,link,slot,[1-9]\\d*,0"), "one link per put, at the tail");
        assertEquals(200, count(kit, "\\d+,[1-9]\\d*,unlink,slot,[1-9]\\d*,1"), "one unlink per take, at the head");
        assertEquals(0, count(kit, ".*,set-(head|tail),.*"), "neither end writes the other's field");

        String lostOrNot = TraceRecord.run("handofflab.handoffs.NoDummyQueue", queue, 2, 20, dir.resolve("nodummy.csv")).verdict;
        assertTrue(List.of("recorded", "deadlock").contains(lostOrNot), lostOrNot);  // a lost node hangs its run's end
        List<String> noDummy = Files.readAllLines(dir.resolve("nodummy.csv"));
        assertTrue(count(noDummy, "\\d+,0,set-head,slot,1,1") >= 1, "its first put, into the empty queue, sets head");
    }
}
