import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A location cache keyed by a class without equals/hashCode, for memcity's cause tests: every
 * lookup of the same city and day makes a new key, so the cache grows with keys equal by value
 * (10 cities × 3 days: 30 distinct). Beside it a map of bookings grows with distinct keys, a
 * growth with no duplicate keys. One city is written in UTF-16 (Łódź) and one holds terminal
 * escapes and markup, to check that values read back exactly and print escaped.
 *
 * <p>Usage: {@code java TravelApp LOOKUPS_PER_PHASE [fixed]} ({@code fixed}: the key has
 * equals/hashCode, so the cache stops at 30 entries). Prints {@code STARTED} and waits for a
 * line on stdin; after each phase prints {@code READY <phase>} and waits again; {@code quit}
 * ends it.
 */
public class TravelApp {
    static boolean FIXED = false;

    static final String[] CITIES = {
        "Linz", "Graz", "Wien", "Salzburg", "Innsbruck", "Łódź", "Kraków", "Brno", "Bratislava",
        "Evil\u001b]0;PWNED\u0007\u001b[31m</script>",
    };

    /** Without FIXED no equality by value: two keys for the same query are different keys. */
    static final class QueryKey {
        final String city;
        final int day;

        QueryKey(String city, int day) {
            this.city = city;
            this.day = day;
        }

        @Override
        public boolean equals(Object o) {
            if (!FIXED) {
                return this == o;
            }
            return o instanceof QueryKey k && k.city.equals(city) && k.day == day;
        }

        @Override
        public int hashCode() {
            return FIXED ? city.hashCode() * 31 + day : System.identityHashCode(this);
        }
    }

    static final class Service {
        final Map<QueryKey, String> locationCache = new ConcurrentHashMap<>();
        final Map<Long, String> bookings = new HashMap<>();

        String locate(String city, int day) {
            QueryKey key = new QueryKey(city, day);
            String found = locationCache.get(key);
            if (found == null) {
                // A copy of the city's text: equal keys hold equal, not identical, strings.
                found = new String(city) + "#" + day;
                locationCache.put(new QueryKey(new String(city), day), found);
            }
            return found;
        }
    }

    static final Service SERVICE = new Service();

    public static void main(String[] args) throws Exception {
        int lookups = Integer.parseInt(args[0]);
        FIXED = args.length > 1 && args[1].equals("fixed");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("STARTED");
        System.out.flush();
        int phase = 0;
        long booking = 0;
        long total = 0;
        while (true) {
            String line = in.readLine();
            if (line == null || line.equals("quit")) {
                return;
            }
            phase++;
            for (int i = 0; i < lookups; i++) {
                total += SERVICE.locate(CITIES[i % CITIES.length], i % 3).length();
                booking++;
                SERVICE.bookings.put(booking, "booking-" + booking);
            }
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(100);
            }
            System.out.println("READY " + phase + " " + total);
            System.out.flush();
        }
    }
}
