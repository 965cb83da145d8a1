package io.hadooptipc.shuffle.server;

import io.hadooptipc.testbed.MapOutputFixture;
import io.hadooptipc.testbed.ShuffleWire;
import io.hadooptipc.tipc.Tipc;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.IsolatedAuxService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Our handler as an operator installs it: on the aux service's isolated class path, where the
 * NodeManager wraps it in {@code AuxiliaryServiceWithCustomClassLoader}, which does not pass on
 * the NodeManager's local path handler. The stock HTTP path must still find map outputs.
 */
class IsolatedClassPathTest {
    @TempDir
    Path dir;

    @Test
    void servesMapOutputsOverHttpWhenLoadedOnItsOwnClassPath() throws Exception {
        MapOutputFixture outputs = new MapOutputFixture(dir, 2, 1, 5_000);
        Configuration conf = new YarnConfiguration();
        conf.set(YarnConfiguration.NM_LOCAL_DIRS, outputs.localDir.toString());
        conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
        String ours = String.join(",", location(TipcShuffleHandler.class), location(Tipc.class));
        AuxiliaryService service = IsolatedAuxService.load(conf, TipcShuffleHandler.class.getName(), ours);
        service.setAuxiliaryLocalPathHandler(outputs.localDirs());
        service.init(conf);
        service.start();
        try {
            service.initializeApplication(outputs.application());
            int port = ShuffleHandler.deserializeMetaData(service.getMetaData());
            String uri = ShuffleWire.uri(ShuffleWire.JOB, 0, outputs.mapIds().toArray(String[]::new));
            HttpURLConnection http = (HttpURLConnection) new URL("http", "localhost", port, uri).openConnection();
            http.setRequestProperty(SecureShuffleUtils.HTTP_HEADER_URL_HASH, ShuffleWire.urlHash(uri, port, outputs.key));
            http.setRequestProperty(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME);
            http.setRequestProperty(ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
            assertEquals(200, http.getResponseCode());
            List<ShuffleWire.Frame> frames = ShuffleWire.frames(http.getInputStream());
            assertEquals(outputs.maps, frames.size());
            for (ShuffleWire.Frame frame : frames) {
                CRC32C crc = new CRC32C();
                crc.update(frame.data());
                assertEquals(outputs.crc(outputs.mapIds().indexOf(frame.mapId()), 0), crc.getValue(), frame.mapId());
            }
        } finally {
            service.stop();
        }
    }

    private static String location(Class<?> c) {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().getPath()).toString();
    }
}
