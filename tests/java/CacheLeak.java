import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One leaking map among thousands of small ones, for memcity's data-structure tests: a search
 * cache whose key class lacks equals/hashCode, so every search misses and adds an entry, beside
 * 2,000 request handlers that each keep a small map of counters that never grows.
 *
 * <p>Usage: {@code java CacheLeak SEARCHES_PER_PHASE [fixed]} ({@code fixed}: the key has
 * equals/hashCode, so repeated searches hit the cache and it stops growing). Prints {@code STARTED} and waits for a
 * line on stdin; after each phase prints {@code READY <phase>} and waits again (a paused point
 * to take a dump at); {@code quit} ends it.
 */
public class CacheLeak {
    /** The bug's switch: {@code fixed} as the second argument gives the key equals/hashCode. */
    static boolean FIXED = false;

    /** Without FIXED no equals/hashCode: two keys for the same search are different map keys. */
    static final class SearchKey {
        final String query;
        final int page;

        SearchKey(String query, int page) {
            this.query = query;
            this.page = page;
        }

        @Override
        public boolean equals(Object o) {
            if (!FIXED) {
                return this == o;
            }
            return o instanceof SearchKey k && k.query.equals(query) && k.page == page;
        }

        @Override
        public int hashCode() {
            return FIXED ? query.hashCode() * 31 + page : System.identityHashCode(this);
        }
    }

    static final class SearchService {
        final Map<SearchKey, List<String>> cache = new HashMap<>();

        List<String> search(String query, int page) {
            SearchKey key = new SearchKey(query, page);
            List<String> hits = cache.get(key);
            if (hits == null) {
                hits = new ArrayList<>();
                hits.add(query + "#" + page + "/1");
                hits.add(query + "#" + page + "/2");
                cache.put(key, hits);
            }
            return hits;
        }
    }

    static final class Handler {
        final Map<String, Integer> counters = new HashMap<>();

        Handler(int id) {
            counters.put("id", id);
            counters.put("hits", 0);
        }
    }

    static final SearchService SERVICE = new SearchService();
    static final List<Handler> HANDLERS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int searches = Integer.parseInt(args[0]);
        FIXED = args.length > 1 && args[1].equals("fixed");
        for (int i = 0; i < 2000; i++) {
            HANDLERS.add(new Handler(i));
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("STARTED");
        System.out.flush();
        int phase = 0;
        long total = 0;
        while (true) {
            String line = in.readLine();
            if (line == null || line.equals("quit")) {
                return;
            }
            phase++;
            for (int i = 0; i < searches; i++) {
                Handler h = HANDLERS.get(i % HANDLERS.size());
                h.counters.put("hits", h.counters.get("hits") + 1);
                total += SERVICE.search("q" + (i % 50), i % 3).size();
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
