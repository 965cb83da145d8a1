package org.apache.hadoop.yarn.server.nodemanager.containermanager;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;

import java.io.IOException;

/**
 * An aux service as the NodeManager loads one whose {@code yarn.nodemanager.aux-services.NAME.classpath}
 * is set: in its own class loader, wrapped in the package-private {@code AuxiliaryServiceWithCustomClassLoader}.
 */
public final class IsolatedAuxService {
    public static AuxiliaryService load(Configuration conf, String className, String classPath)
            throws IOException, ClassNotFoundException {
        // No system classes: as with yarn.nodemanager.aux-services.NAME.system-classes unset, the class
        // loader's defaults (java., org.apache.hadoop., ...) come from the parent.
        return AuxiliaryServiceWithCustomClassLoader.getInstance(conf, className, classPath, new String[0]);
    }

    private IsolatedAuxService() {
    }
}
