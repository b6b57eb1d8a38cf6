import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;

/**
 * A program with two deliberate leaks, for memcity's HPROF import tests.
 *
 * <p>Usage: {@code java LeakApp PEOPLE_PER_PHASE SEARCHES_PER_PHASE}. It prints {@code STARTED}
 * and waits for a line on stdin (time to attach jcmd once, so the attach machinery's own objects
 * exist before the first dump). After each phase it prints {@code READY <phase>} and waits for a
 * line again (so dumps and histograms are taken at a paused point); {@code quit} ends it.
 */
public class LeakApp {
    /** Leak 1: every registered person is kept forever. */
    static final LinkedList<Person> PEOPLE = new LinkedList<>();
    /** Leak 2: a cache whose key lacks equals/hashCode, so every lookup misses and adds. */
    static final Map<SearchKey, String> CACHE = new HashMap<>();
    /**
     * Leak 3, the way servlet containers leak sessions: the manager's map keeps every session,
     * and every session has a map of its own, so the holder is one map among many of its type.
     */
    static final SessionManager SESSIONS = new SessionManager();
    /** A class with {@code @Contended} padding in the JDK, sized by the histogram too. */
    static final ForkJoinPool POOL = new ForkJoinPool(2);
    /** A lambda: its hidden class is named differently in a dump and in the histogram. */
    static final Runnable ON_EXIT = () -> System.out.println("bye");

    static final class Person {
        final String name;
        final String email;
        final int age;

        Person(String name, String email, int age) {
            this.name = name;
            this.email = email;
            this.age = age;
        }
    }

    static final class Session {
        final String id;
        final Map<String, Object> attributes = new HashMap<>();

        Session(String id) {
            this.id = id;
            attributes.put("user", id);
        }
    }

    static final class SessionManager {
        final Map<String, Session> sessions = new HashMap<>();

        void create(String id) {
            sessions.put(id, new Session(id));
        }
    }

    /** No equals/hashCode: two keys for the same search are different map keys. */
    static final class SearchKey {
        final String location;
        final Date date;

        SearchKey(String location, Date date) {
            this.location = location;
            this.date = date;
        }
    }

    /**
     * Collects garbage and lets the cleaner thread finish, so a heap dump and a class histogram
     * taken at this pause see the same objects.
     */
    static void settle() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
    }

    public static void main(String[] args) throws Exception {
        int people = Integer.parseInt(args[0]);
        int searches = Integer.parseInt(args[1]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("STARTED");
        System.out.flush();
        if (in.readLine() == null) {
            return;
        }
        long serial = 0;
        for (int phase = 1; ; phase++) {
            for (int i = 0; i < people; i++, serial++) {
                PEOPLE.add(new Person("person-" + serial, "p" + serial + "@example.org", (int) (serial % 90)));
            }
            for (int i = 0; i < people / 10; i++) {
                // No string concatenation: a new call site would bootstrap while the JVM pauses.
                SESSIONS.create(String.valueOf(serial * 1000 + i));
            }
            for (int i = 0; i < searches; i++) {
                SearchKey key = new SearchKey("city-" + (i % 10), new Date(1_700_000_000_000L + i % 7));
                if (!CACHE.containsKey(key)) {
                    CACHE.put(key, "result for " + key.location);
                }
            }
            settle();
            // No string concatenation here: its first use would bootstrap a call site after settle().
            System.out.print("READY ");
            System.out.println(phase);
            System.out.flush();
            String line = in.readLine();
            if (line == null || line.equals("quit")) {
                return;
            }
        }
    }
}
