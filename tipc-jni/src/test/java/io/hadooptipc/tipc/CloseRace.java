package io.hadooptipc.tipc;

import io.hadooptipc.testbed.Testbed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * One thread inside a call on a channel while another closes it, over and over, and a
 * bystander thread that keeps opening sockets all the while: a descriptor number closed
 * under a thread still using it would soon be the bystander's, and the bystander would
 * see bytes vanish or appear. On {@link #close()}: no failure recorded, the bystander's
 * bytes intact, every socket opened during the race closed, and every socket open before
 * it still open.
 */
final class CloseRace implements AutoCloseable {
    private static final long WAIT_SECONDS = 10;

    private final ExecutorService threads;
    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    private final Random random = new Random(11);
    private final Set<String> socketsBefore;
    private final Future<?> bystander;
    private volatile boolean running = true;

    CloseRace() throws IOException {
        // before the snapshot: copying our library out of the jar starts the JDK's file channels,
        // which open a socket they keep for good (FileDispatcherImpl's pre-close socket)
        TipcNative.ensureLoaded();
        socketsBefore = Testbed.openSockets();
        threads = Executors.newCachedThreadPool(task -> {
            Thread t = new Thread(task, "close-race");
            t.setDaemon(true);
            return t;
        });
        bystander = threads.submit(this::bystand);
    }

    /** Starts {@code victim} on another thread, closes {@code channel} a moment later, and checks how the victim ended. */
    void closeDuring(String call, Closeable channel, Callable<?> victim) {
        Future<?> running = threads.submit(victim);
        spin(random.nextInt(300));
        try {
            channel.close();
        } catch (IOException | RuntimeException e) {
            failures.add("close during " + call + " threw " + trace(e));
        }
        ended(call, running, true);
    }

    /** Starts a helper (a peer pumping or draining bytes); how it ends is not checked, only that it does. */
    Future<?> helper(Callable<?> work) {
        return threads.submit(work);
    }

    /** Waits for a helper started by {@link #helper}. */
    void finish(Future<?> helper) {
        ended("helper", helper, false);
    }

    private void ended(String call, Future<?> f, boolean checked) {
        try {
            f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (checked && !(cause instanceof ClosedChannelException) && !(cause instanceof ClosedSelectorException)) {
                failures.add(call + " on a channel closed by another thread ended with " + trace(cause));
            }
        } catch (TimeoutException e) {
            failures.add(call + " still running " + WAIT_SECONDS + " s after the close");
            f.cancel(true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add("interrupted");
        }
    }

    private Void bystand() throws Exception {
        ByteBuffer in = ByteBuffer.allocate(16);
        for (long seq = 0; running; seq++) {
            TipcSocketChannel[] pair = UnixSockets.pair();
            try (TipcSocketChannel a = pair[0]; TipcSocketChannel b = pair[1]) {
                ByteBuffer out = ByteBuffer.allocate(16).putLong(seq).putLong(~seq).flip();
                a.writeFully(out);
                in.clear();
                while (in.hasRemaining()) {
                    if (!b.awaitReadable(5000) || b.read(in) < 0) {
                        failures.add("bystander socket " + b + ": bytes vanished (" + in.position() + " of 16 read)");
                        break;
                    }
                }
                if (!in.hasRemaining() && (in.getLong(0) != seq || in.getLong(8) != ~seq)) {
                    failures.add("bystander socket " + b + ": read bytes another socket's user wrote");
                }
            } catch (IOException | RuntimeException e) {
                failures.add("bystander: " + trace(e));
            }
        }
        return null;
    }

    @Override
    public void close() throws Exception {
        running = false;
        bystander.get(WAIT_SECONDS, TimeUnit.SECONDS);
        threads.shutdown();
        assertTrue(threads.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), "race threads still running");
        List<String> seen;
        synchronized (failures) {
            seen = List.copyOf(failures);
        }
        Map<String, Long> kinds = seen.stream().collect(Collectors.groupingBy(
                f -> f.lines().findFirst().orElse(""), TreeMap::new, Collectors.counting()));
        assertEquals(List.of(), seen.subList(0, Math.min(seen.size(), 3)),
                seen.size() + " failures, by kind " + kinds + "; the first ones");
        // every race thread has ended, so each socket it closed is out of the descriptor table
        Set<String> socketsAfter = Testbed.openSockets();
        assertEquals(Set.of(), difference(socketsAfter, socketsBefore), "sockets opened during the race and still open");
        assertEquals(Set.of(), difference(socketsBefore, socketsAfter), "sockets open before the race that it closed");
    }

    private static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> d = new TreeSet<>(a);
        d.removeAll(b);
        return d;
    }

    private static void spin(int micros) {
        long until = System.nanoTime() + micros * 1000L;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    private static String trace(Throwable t) {
        StringWriter s = new StringWriter();
        t.printStackTrace(new PrintWriter(s));
        return s.toString().lines().limit(12).reduce((a, b) -> a + "\n" + b).orElse("");
    }
}
