package io.hadooptipc.shuffle.client;

import io.hadooptipc.shuffle.HttpHead;
import io.hadooptipc.shuffle.ShuffleServiceName;
import io.hadooptipc.shuffle.TipcShuffleConfig;
import io.hadooptipc.tipc.Tipc;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our classes spin no method handles at first use that a stock reduce task's fetch does not:
 * under emulation each invokedynamic string concatenation site, lambda or method reference, and a
 * record's generated equals/hashCode spin them at 10-15 ms a class, dozens of classes in a task's
 * first fetch (StartCost).
 */
class BootstrapFreeTest {

    @Test
    void noClassConcatenatesStringsByInvokedynamic() throws Exception {
        List<String> offenders = new ArrayList<>();
        for (Class<?> anchor : List.of(Tipc.class, TipcShuffleConsumer.class)) {
            forEachClass(anchor, (name, bytes) -> {
                if (contains(bytes, "makeConcatWithConstants")) {
                    offenders.add(name);
                }
            });
        }
        assertTrue(offenders.isEmpty(), "compiled with invokedynamic string concatenation (-XDstringConcat=inline missing?): "
                + offenders);
    }

    /** tipc-jni, the client package, and the shuffle-wide classes the client uses. */
    @Test
    void noClassOnTheConsumersPathSpinsLambdas() throws Exception {
        List<String> offenders = new ArrayList<>();
        ClassBytes check = (name, bytes) -> {
            if (contains(bytes, "java/lang/invoke/LambdaMetafactory")) {
                offenders.add(name);
            }
        };
        forEachClass(Tipc.class, check);
        List<String> shared = List.of(HttpHead.class, ShuffleServiceName.class, TipcShuffleConfig.class).stream()
                .map(c -> c.getName().replace('.', '/') + ".class").collect(Collectors.toList());
        forEachClass(TipcShuffleConsumer.class, (name, bytes) -> {
            if (name.startsWith("io/hadooptipc/shuffle/client/") || shared.contains(name)) {
                check.accept(name, bytes);
            }
        });
        assertTrue(offenders.isEmpty(), "lambdas or method references, each spun into a class at first use: " + offenders);
    }

    @Test
    void namesTimeoutsAndOptionsAreComparedWithoutObjectMethods() throws Exception {
        for (Class<?> c : List.of(ShuffleServiceName.class, Timeouts.class,
                Class.forName("io.hadooptipc.tipc.TipcSocketOptions$Option"))) {
            assertFalse(contains(bytes(c), "java/lang/runtime/ObjectMethods"), c + " bootstraps ObjectMethods");
        }
        InetAddress a = InetAddress.getByName("10.0.0.7");
        assertEquals(new ShuffleServiceName(a, 13562), ShuffleServiceName.of(InetAddress.getByName("10.0.0.7"), 13562));
        assertEquals(new ShuffleServiceName(a, 13562).hashCode(), new ShuffleServiceName(a, 13562).hashCode());
        assertNotEquals(new ShuffleServiceName(a, 13562), new ShuffleServiceName(a, 13563));
        assertNotEquals(new ShuffleServiceName(a, 13562), new ShuffleServiceName(InetAddress.getByName("10.0.0.8"), 13562));
        assertEquals(new Timeouts(1, 2, 3), new Timeouts(1, 2, 3));
        assertEquals(new Timeouts(1, 2, 3).hashCode(), new Timeouts(1, 2, 3).hashCode());
        assertNotEquals(new Timeouts(1, 2, 3), new Timeouts(1, 2, 4));
        assertNotEquals(new Timeouts(1, 2, 3), new Timeouts(2, 1, 3));
    }

    private interface ClassBytes {
        void accept(String name, byte[] bytes) throws IOException;
    }

    /** Every class file next to {@code anchor}'s: in its jar, or under its class directory. */
    private static void forEachClass(Class<?> anchor, ClassBytes action) throws IOException, URISyntaxException {
        Path root = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        int seen = 0;
        if (Files.isDirectory(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class")).collect(Collectors.toList())) {
                    action.accept(root.relativize(f).toString(), Files.readAllBytes(f));
                    seen++;
                }
            }
        } else {
            try (JarFile jar = new JarFile(root.toFile())) {
                for (JarEntry e : jar.stream().filter(e -> e.getName().endsWith(".class")).collect(Collectors.toList())) {
                    try (InputStream in = jar.getInputStream(e)) {
                        action.accept(e.getName(), in.readAllBytes());
                    }
                    seen++;
                }
            }
        }
        assertTrue(seen > 10, "only " + seen + " classes found at " + root);
    }

    private static byte[] bytes(Class<?> c) throws IOException {
        try (InputStream in = c.getResourceAsStream(c.getName().substring(c.getName().lastIndexOf('.') + 1) + ".class")) {
            return in.readAllBytes();
        }
    }

    /** Constant-pool names are stored as (modified) UTF-8, so an ASCII name is a plain byte sequence. */
    private static boolean contains(byte[] haystack, String ascii) {
        byte[] needle = ascii.getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
