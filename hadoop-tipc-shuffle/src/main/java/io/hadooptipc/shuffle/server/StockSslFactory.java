package io.hadooptipc.shuffle.server;

import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.security.ssl.SSLFactory;

import java.lang.reflect.Field;

/**
 * The SSL factory stock's ShuffleHandler serves HTTPS with: made from the NodeManager's
 * ssl-server.xml when {@code mapreduce.shuffle.ssl.enabled} is on (in {@code serviceStart}, destroyed
 * in {@code serviceStop}), so TLS over TIPC has the same certificate, protocols, ciphers and key
 * store reloading as HTTPS. Stock keeps it in a private field with no getter, hence reflection; the
 * TLS tests of TipcPipelineTest fail, for Hadoop 3.4 and 3.5 alike, if the field goes.
 */
final class StockSslFactory {
    private StockSslFactory() {
    }

    /** @throws IllegalStateException when stock has made none: then TIPC is not served at all, never in plaintext */
    static SSLFactory of(ShuffleHandler started) {
        try {
            Field field = ShuffleHandler.class.getDeclaredField("sslFactory");
            field.setAccessible(true);
            SSLFactory factory = (SSLFactory) field.get(started);
            if (factory == null) {
                throw new IllegalStateException("stock's ShuffleHandler made no SSL factory although "
                        + MRConfig.SHUFFLE_SSL_ENABLED_KEY + " is on");
            }
            return factory;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot reach stock's SSL factory for TLS over TIPC: " + e, e);
        }
    }
}
