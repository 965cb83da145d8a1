package org.apache.hadoop.mapred;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.metrics2.impl.MetricsSystemImpl;
import org.apache.hadoop.yarn.server.api.AuxiliaryLocalPathHandler;

import java.io.IOException;

/**
 * Where the stock ShuffleHandler finds a map's output for a reducer: its own path cache,
 * IndexCache and {@code ShuffleChannelHandler.getMapOutputInfo}, all package-private, reached
 * from this package for tests that compare our copy with them. No port, no thread.
 */
public final class StockMapOutputs {
    /** The data file and its index record, as stock's handler would serve them. */
    public record Located(Path data, IndexRecord index) {
    }

    private final ShuffleChannelHandler handler;

    public StockMapOutputs(Configuration conf, AuxiliaryLocalPathHandler localDirs) {
        ShuffleHandler stock = new ShuffleHandler(new MetricsSystemImpl()) {
            {
                setConfig(conf);
                setAuxiliaryLocalPathHandler(localDirs);
            }
        };
        handler = new ShuffleChannelHandler(stock.createHandlerContext());
    }

    public Located locate(String jobId, String user, String mapId, int reduce) throws IOException {
        ShuffleChannelHandler.MapOutputInfo info = handler.getMapOutputInfo(mapId, reduce, jobId, user);
        return new Located(info.mapOutputFileName, info.indexRecord);
    }
}
