package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;

import java.util.Arrays;
import java.util.Map;

/** Response bytes as a shuffle server sends them, for the peers of host tests. */
final class CannedResponse {
    private CannedResponse() {
    }

    /**
     * A whole response with the stock shuffle's name and version fields.
     *
     * @param server the {@code X-TIPC-Shuffle-Server} it names; null names none
     */
    static byte[] of(int status, String server, Map<String, String> fields, byte[] body) {
        HttpHead.Builder head = HttpHead.builder("HTTP/1.1 " + status + " Status " + status)
                .field("Content-Length", body.length)
                .field(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME)
                .field(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
        if (server != null) {
            head.field(TipcShuffleConfig.SERVER_HEADER, server);
        }
        fields.forEach(head::field);
        byte[] bytes = head.build().encode();
        byte[] all = Arrays.copyOf(bytes, bytes.length + body.length);
        System.arraycopy(body, 0, all, bytes.length, body.length);
        return all;
    }
}
