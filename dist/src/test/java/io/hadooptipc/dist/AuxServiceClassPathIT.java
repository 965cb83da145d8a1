package io.hadooptipc.dist;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The NodeManager loads TipcShuffleHandler from yarn.nodemanager.aux-services.mapreduce_shuffle.classpath
 * = the tarball's lib/*, in Hadoop's own isolated class loader, which takes every
 * org.apache.hadoop.* class from the NodeManager's class path only. The test JVM's class
 * path is Hadoop without our jars (failsafe excludes them), standing in for the NodeManager's.
 */
class AuxServiceClassPathIT {
    static final String HANDLER = "io.hadooptipc.shuffle.server.TipcShuffleHandler";

    @Test
    void theNodeManagersIsolatedClassLoaderStartsTheHandler() throws Exception {
        AuxiliaryService service = auxService();
        ClassLoader loader = wrapped(service).getClass().getClassLoader();
        assertTrue(loader instanceof org.apache.hadoop.util.ApplicationClassLoader, loader.toString());
        assertEquals(HANDLER, wrapped(service).getClass().getName());
        Configuration conf = new Configuration();
        conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
        service.init(conf);
        service.start();
        try {
            assertTrue(ShuffleHandler.deserializeMetaData(service.getMetaData()) > 0, "the HTTP/TCP shuffle serves");
        } finally {
            service.stop();
        }
    }

    /**
     * Every class the handler's code can reach in our jars, and every class those refer to,
     * resolves through that loader: the TIPC path included, which a host without AF_TIPC
     * never runs. A class of ours in an org.apache.hadoop package would not.
     */
    @Test
    void everyClassTheHandlerCanReachResolvesThroughThatLoader() throws Exception {
        ClassLoader loader = wrapped(auxService()).getClass().getClassLoader();
        Map<String, byte[]> ours = classesInLib();
        Set<String> missing = new TreeSet<>();
        Set<String> reached = new TreeSet<>();
        Deque<String> todo = new ArrayDeque<>(Set.of(HANDLER));
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (!reached.add(name)) {
                continue;
            }
            try (InputStream in = new java.io.ByteArrayInputStream(ours.get(name))) {
                for (String ref : ClassReferences.of(in)) {
                    try {
                        Class.forName(ref, false, loader);
                    } catch (ClassNotFoundException | NoClassDefFoundError e) {
                        missing.add(ref + " (referenced by " + name + ")");
                        continue;
                    }
                    if (ours.containsKey(ref)) {
                        todo.push(ref);
                    }
                }
            }
        }
        assertTrue(reached.contains("io.hadooptipc.shuffle.server.TipcShuffleServer"), reached.toString());
        assertTrue(reached.contains("io.hadooptipc.shuffle.server.TipcShuffleChannelInitializer"), reached.toString());
        assertEquals(Set.of(), missing);
    }

    private static AuxiliaryService auxService() throws Exception {
        Class<?> custom = Class.forName(
                "org.apache.hadoop.yarn.server.nodemanager.containermanager.AuxiliaryServiceWithCustomClassLoader");
        Method getInstance = custom.getMethod("getInstance", Configuration.class, String.class, String.class,
                String[].class);
        getInstance.setAccessible(true);
        String classpath = UnpackedTarball.home().resolve("lib") + "/*";
        // As AuxServices does: no yarn.nodemanager.aux-services.mapreduce_shuffle.system-classes = the defaults.
        return (AuxiliaryService) getInstance.invoke(null, new Configuration(), HANDLER, classpath, new String[0]);
    }

    private static Object wrapped(AuxiliaryService service) throws Exception {
        Field f = service.getClass().getDeclaredField("wrapped");
        f.setAccessible(true);
        return f.get(service);
    }

    private static Map<String, byte[]> classesInLib() throws Exception {
        Map<String, byte[]> classes = new HashMap<>();
        try (Stream<Path> jars = Files.list(UnpackedTarball.home().resolve("lib"))) {
            // The jars, as the aux service's lib/* takes them: lib/native holds the unpacked library.
            for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).collect(Collectors.toList())) {
                try (JarFile j = new JarFile(jar.toFile())) {
                    for (JarEntry e : java.util.Collections.list(j.entries())) {
                        String n = e.getName();
                        if (n.endsWith(".class") && !n.equals("module-info.class") && !n.startsWith("META-INF/")) {
                            try (InputStream in = j.getInputStream(e)) {
                                classes.put(n.substring(0, n.length() - 6).replace('/', '.'), in.readAllBytes());
                            }
                        }
                    }
                }
            }
        }
        return classes;
    }
}
