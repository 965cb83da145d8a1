package io.hadooptipc.tipc;

import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Runs an action once its channel has become unreachable, or at once when asked: what
 * {@code java.lang.ref.Cleaner} does from Java 9, for the Java 8 runtimes of the Hadoop 3.4 line.
 * One daemon thread, started at first use, waits for the collected channels.
 */
final class DroppedChannelCloser {
    private static final ReferenceQueue<Object> COLLECTED = new ReferenceQueue<>();
    /** The registrations not run yet: a phantom reference nobody holds is collected itself. */
    private static final Set<Registration> PENDING =
            Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<Registration, Boolean>()));

    static {
        Thread thread = new Thread(new Waiter(), "hadoop-tipc channel closer");
        thread.setDaemon(true);
        thread.start();
    }

    private DroppedChannelCloser() {
    }

    /** {@code action} runs once: at {@link Registration#run()}, or after {@code channel} is collected. */
    static Registration register(Object channel, Runnable action) {
        Registration r = new Registration(channel, action);
        PENDING.add(r);
        return r;
    }

    static final class Registration extends PhantomReference<Object> {
        private final Runnable action;

        Registration(Object channel, Runnable action) {
            super(channel, COLLECTED);
            this.action = action;
        }

        /** Runs the action unless it ran already. */
        void run() {
            if (PENDING.remove(this)) {
                clear();
                action.run();
            }
        }
    }

    // A named class rather than a lambda: see TipcChannel.
    private static final class Waiter implements Runnable {
        @Override
        public void run() {
            while (true) {
                try {
                    ((Registration) COLLECTED.remove()).run();
                } catch (InterruptedException e) {
                    // a daemon thread nobody interrupts on purpose: keep waiting
                } catch (RuntimeException e) {
                    // one action's failure must not end the closing of the others
                }
            }
        }
    }
}
