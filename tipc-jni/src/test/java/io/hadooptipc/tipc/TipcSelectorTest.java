package io.hadooptipc.tipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The event loop's own machinery (epoll, eventfd) works on any Linux kernel. */
class TipcSelectorTest {

    @Test
    void wakeupEndsABlockedSelect() throws Exception {
        try (TipcSelector selector = TipcSelector.open()) {
            Thread waker = new Thread(() -> {
                sleep(200);
                selector.wakeup();
            });
            waker.start();
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertEquals(0, selector.select()));
            waker.join();
            assertEquals(0, selector.selectNow(), "the wakeup was consumed");
        }
    }

    @Test
    void closedSelectorRefusesToSelect() throws Exception {
        TipcSelector selector = TipcSelector.open();
        selector.close();
        assertThrows(ClosedSelectorException.class, selector::selectNow);
    }

    @Test
    void interestOpsMapToEpollEvents() {
        assertEquals(TipcNative.EPOLLIN, TipcSelector.epollEvents(SelectionKey.OP_ACCEPT));
        assertEquals(TipcNative.EPOLLIN | TipcNative.EPOLLOUT,
                TipcSelector.epollEvents(SelectionKey.OP_READ | SelectionKey.OP_WRITE));
        assertEquals(SelectionKey.OP_READ, TipcSelector.readyOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE, TipcNative.EPOLLIN));
        assertEquals(SelectionKey.OP_CONNECT, TipcSelector.readyOps(SelectionKey.OP_CONNECT, TipcNative.EPOLLHUP));
        assertEquals(0, TipcSelector.readyOps(SelectionKey.OP_WRITE, TipcNative.EPOLLIN));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
