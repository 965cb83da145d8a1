package io.hadooptipc.dist;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static io.hadooptipc.dist.UnpackedTarball.NAME;
import static io.hadooptipc.dist.UnpackedTarball.VERSION;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What `mvn package` puts in hadoop-tipc-<version>.tar.gz (-hadoop-3.4.tar.gz under -Phadoop-3.4), unpacked. */
class TarballIT {
    static final String LIB = "/opt/" + NAME + "/lib/*";

    @Test
    void layoutIsExactlyWhatTheOperatorInstalls() throws Exception {
        Path home = UnpackedTarball.home();
        Set<String> files = new TreeSet<>();
        try (Stream<Path> all = Files.walk(home)) {
            all.filter(Files::isRegularFile).forEach(f -> files.add(home.relativize(f).toString()));
        }
        assertEquals(new TreeSet<>(List.of(
                "INSTALL",
                "bin/hadoop-tipc",
                "etc/hadoop-tipc/hdfs-site.xml",
                "etc/hadoop-tipc/mapred-site.xml",
                "etc/hadoop-tipc/yarn-site.xml",
                "lib/hadoop-tipc-shuffle-" + VERSION + ".jar",
                "lib/hdfs-storage-policy-tools-" + VERSION + ".jar",
                "lib/jna-5.17.0.jar", // the DataNode's core affinity; Hadoop ships JNA only to the NodeManager
                "lib/native/libhadooptipc.so",
                "lib/tipc-jni-" + VERSION + ".jar")), files);
        assertTrue(Files.isExecutable(home.resolve("bin/hadoop-tipc")));
        try (JarFile jni = new JarFile(home.resolve("lib/tipc-jni-" + VERSION + ".jar").toFile())) {
            JarEntry library = jni.getJarEntry("META-INF/native/linux-x86_64/libhadooptipc.so");
            assertNotNull(library, "native library in the jar");
            try (InputStream in = jni.getInputStream(library)) {
                assertArrayEquals(in.readAllBytes(), Files.readAllBytes(home.resolve("lib/native/libhadooptipc.so")),
                        "the unpacked library is the jar's");
            }
        }
    }

    /**
     * Every class Hadoop's JVMs load from lib/ is of the oldest Java its Hadoop line runs on (Java 8 for
     * 3.4, 17 for 3.5): a newer one fails to load there with UnsupportedClassVersionError.
     */
    @Test
    void ourClassesLoadOnTheOldestJavaOfTheirHadoopLine() throws Exception {
        int major = 44 + Integer.parseInt(System.getProperty("dist.java.release"));
        Path lib = UnpackedTarball.home().resolve("lib");
        int classes = 0;
        for (String jarName : List.of("hadoop-tipc-shuffle-", "tipc-jni-", "hdfs-storage-policy-tools-")) {
            try (JarFile jar = new JarFile(lib.resolve(jarName + VERSION + ".jar").toFile())) {
                for (JarEntry e : Collections.list(jar.entries())) {
                    if (e.getName().endsWith(".class")) {
                        try (DataInputStream in = new DataInputStream(jar.getInputStream(e))) {
                            in.readInt(); // magic
                            in.readUnsignedShort(); // minor version
                            assertEquals(major, in.readUnsignedShort(), jarName + VERSION + ".jar!" + e.getName());
                        }
                        classes++;
                    }
                }
            }
        }
        assertTrue(classes > 50, "only " + classes + " classes");
    }

    @Test
    void reduceTasksLoadTheUnpackedLibraryWithStocksAdminOptionsKept() throws Exception {
        String opts = snippet("mapred-site.xml").get(MRJobConfig.MAPRED_REDUCE_ADMIN_JAVA_OPTS);
        assertTrue(opts.startsWith(MRJobConfig.DEFAULT_MAPRED_ADMIN_JAVA_OPTS.strip() + " "), opts);
        assertTrue(opts.endsWith(" -Dhadooptipc.native.library=/opt/" + NAME
                + "/lib/native/libhadooptipc.so"), opts);
    }

    @Test
    void snippetsAndInstallNameTheUnpackedFolder() throws Exception {
        Path home = UnpackedTarball.home();
        for (String f : List.of("INSTALL", "etc/hadoop-tipc/yarn-site.xml", "etc/hadoop-tipc/mapred-site.xml",
                "etc/hadoop-tipc/hdfs-site.xml")) {
            String text = Files.readString(home.resolve(f));
            assertFalse(text.contains("${"), f + " has an unfiltered property");
            assertTrue(text.contains("/opt/" + NAME + "/lib/*"), f);
        }
    }

    @Test
    void snippetsSetTheStockKeysAnOperatorMustSet() throws Exception {
        Configuration yarn = snippet("yarn-site.xml");
        assertEquals("mapreduce_shuffle", yarn.get("yarn.nodemanager.aux-services"));
        assertEquals("io.hadooptipc.shuffle.server.TipcShuffleHandler",
                yarn.get("yarn.nodemanager.aux-services.mapreduce_shuffle.class"));
        assertEquals(LIB, yarn.get("yarn.nodemanager.aux-services.mapreduce_shuffle.classpath"));
        Configuration mapred = snippet("mapred-site.xml");
        assertEquals("io.hadooptipc.shuffle.client.TipcShuffleConsumer",
                mapred.get("mapreduce.job.reduce.shuffle.consumer.plugin.class"));
        String[] appClasspath = mapred.getTrimmedStrings("mapreduce.application.classpath");
        assertEquals(LIB, appClasspath[appClasspath.length - 1]);
        assertTrue(appClasspath[0].startsWith("$HADOOP_MAPRED_HOME/share/hadoop/mapreduce/"), "stock entries kept");
    }

    @Test
    void everyShippedDefaultIsInTheSnippetsWithItsValue() throws Exception {
        Path lib = UnpackedTarball.home().resolve("lib");
        Map<String, List<String>> snippetsOfDefaults = Map.of(
                "hadoop-tipc-shuffle-" + VERSION + ".jar!tipc-shuffle-default.xml", List.of("yarn-site.xml", "mapred-site.xml"),
                "hdfs-storage-policy-tools-" + VERSION + ".jar!hdfs-storage-policy-tools-default.xml", List.of("hdfs-site.xml"));
        for (Map.Entry<String, List<String>> e : snippetsOfDefaults.entrySet()) {
            String[] jarAndResource = e.getKey().split("!");
            Configuration defaults = new Configuration(false);
            try (URLClassLoader jar = new URLClassLoader(new URL[]{lib.resolve(jarAndResource[0]).toUri().toURL()}, null);
                 InputStream xml = jar.getResourceAsStream(jarAndResource[1])) {
                assertNotNull(xml, e.getKey());
                defaults.addResource(xml);
                int keys = 0;
                for (Map.Entry<String, String> key : defaults) {
                    keys++;
                    boolean found = false;
                    for (String file : e.getValue()) {
                        Configuration snippet = snippet(file);
                        if (snippet.getRaw(key.getKey()) != null) {
                            found = true;
                            assertEquals(defaults.getRaw(key.getKey()), snippet.getRaw(key.getKey()),
                                    key.getKey() + " in " + file);
                        }
                    }
                    assertTrue(found, key.getKey() + " from " + e.getKey() + " is in none of " + e.getValue());
                }
                assertTrue(keys >= 5, e.getKey() + " read");
            }
        }
    }

    private static Configuration snippet(String name) throws Exception {
        Configuration conf = new Configuration(false);
        conf.addResource(new org.apache.hadoop.fs.Path(
                UnpackedTarball.home().resolve("etc/hadoop-tipc").resolve(name).toUri()));
        return conf;
    }
}
