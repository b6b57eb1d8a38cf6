import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A heap of about 25 million objects for the data-structure benchmark (README, "Data
 *  structures"): one big map of lists of items, and many small maps beside it. Prints READY
 *  once built and waits for a line on stdin (take the dump with jcmd meanwhile).
 *  Usage: java -Xmx6g BigHeap [ENTRIES] */
public class BigHeap {
    static final class Item {
        final long id;
        final int size;
        final String name;

        Item(long id, int size, String name) {
            this.id = id;
            this.size = size;
            this.name = name;
        }
    }

    static final Map<Integer, List<Item>> INDEX = new HashMap<>();
    static final List<Map<String, Integer>> SMALL = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 1_500_000;
        for (int i = 0; i < entries; i++) {
            List<Item> items = new ArrayList<>(4);
            for (int k = 0; k < 4; k++) {
                items.add(new Item((long) i * 4 + k, k, "item-" + i + "-" + k));
            }
            INDEX.put(i, items);
        }
        for (int i = 0; i < 20_000; i++) {
            Map<String, Integer> m = new HashMap<>();
            m.put("hits", i);
            m.put("errors", 0);
            SMALL.add(m);
        }
        System.out.println("READY");
        System.out.flush();
        System.in.read();
    }
}
