package handofflab.calendar;

import java.nio.file.Paths;
import java.util.Map;

/**
 * The process {@link EventStoreTest} kills with SIGKILL: four threads each create events and
 * move them (date and time together, to version k), deleting every fifth, and print each request
 * once it has returned: "C id", "M id k", "D id" ("d id" just before a delete). What was printed
 * was committed.
 */
public final class CrashDriver {
    public static void main(String[] args) throws Exception {
        EventStore store = new EventStore(Paths.get(args[0]), "LazyList");
        for (int t = 0; t < 4; t++) {
            new Thread(() -> {
                try {
                    for (int n = 0; ; n++) {
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
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                    System.exit(3);
                }
            }).start();
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
