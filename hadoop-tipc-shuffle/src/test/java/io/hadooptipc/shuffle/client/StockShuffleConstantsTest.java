package io.hadooptipc.shuffle.client;

import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * TipcShuffleConsumer runs the stock shuffle's loop with the stock plugin's private constants:
 * a Hadoop version that changes them (this runs against 3.5 and 3.4) fails here, not in production.
 */
class StockShuffleConstantsTest {
    @Test
    void ourCopiesEqualTheStockShufflesConstants() throws Exception {
        assertEquals(stock("PROGRESS_FREQUENCY"), TipcShuffleConsumer.PROGRESS_FREQUENCY_MS);
        assertEquals(stock("MIN_EVENTS_TO_FETCH"), TipcShuffleConsumer.MIN_EVENTS_TO_FETCH);
        assertEquals(stock("MAX_EVENTS_TO_FETCH"), TipcShuffleConsumer.MAX_EVENTS_TO_FETCH);
        assertEquals(stock("MAX_RPC_OUTSTANDING_EVENTS"), TipcShuffleConsumer.MAX_RPC_OUTSTANDING_EVENTS);
    }

    private static int stock(String name) throws ReflectiveOperationException {
        Field field = Shuffle.class.getDeclaredField(name);
        field.setAccessible(true);
        return field.getInt(null);
    }
}
