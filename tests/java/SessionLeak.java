import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.HashMap;
import java.util.Map;

/**
 * A Tomcat-like session leak, for memcity's ownership tests: a session manager keeps every
 * session in a HashMap and never expires one; each session keeps its attributes in a HashMap
 * of its own and refers back to its manager.
 *
 * <p>Usage: {@code java SessionLeak SESSIONS_PER_PHASE}. Prints {@code STARTED} and waits for a
 * line on stdin; after each phase prints {@code READY <phase>} and waits again (a paused point
 * to take a dump at); {@code quit} ends it.
 */
public class SessionLeak {
    static final class Session {
        final String id;
        final SessionManager manager;
        final Map<String, Object> attributes = new HashMap<>();

        Session(String id, SessionManager manager) {
            this.id = id;
            this.manager = manager;
        }
    }

    static final class SessionManager {
        final Map<String, Session> sessions = new HashMap<>();
        int created;

        Session create() {
            String id = "session-" + (created++);
            Session s = new Session(id, this);
            s.attributes.put("user", "user-" + created);
            s.attributes.put("cart", new int[16]);
            s.attributes.put("visits", created);
            sessions.put(id, s);
            return s;
        }
    }

    static final SessionManager MANAGER = new SessionManager();

    public static void main(String[] args) throws Exception {
        int perPhase = Integer.parseInt(args[0]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("STARTED");
        System.out.flush();
        int phase = 0;
        while (true) {
            String line = in.readLine();
            if (line == null || line.equals("quit")) {
                return;
            }
            phase++;
            for (int i = 0; i < perPhase; i++) {
                MANAGER.create();
            }
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(100);
            }
            System.out.println("READY " + phase);
            System.out.flush();
        }
    }
}
