import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Two threads hashing strings until their methods are JIT-compiled and patched while both run. */
public class Spin {
    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<Long>> parts = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            parts.add(pool.submit(() -> {
                long sum = 0;
                Map<String, Integer> counts = new HashMap<>();
                for (int i = 0; i < 400_000; i++) {
                    String key = Integer.toHexString(i * 31 % 5003);
                    counts.merge(key, 1, Integer::sum);
                    sum += key.compareTo("7ff") + key.hashCode();
                }
                return sum + counts.size();
            }));
        }
        long sum = 0;
        for (Future<Long> part : parts) {
            sum += part.get();
        }
        pool.shutdown();
        System.out.println(sum);
    }
}
