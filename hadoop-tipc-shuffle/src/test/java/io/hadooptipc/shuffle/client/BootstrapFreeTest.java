package io.hadooptipc.shuffle.client;

import io.hadooptipc.tipc.Tipc;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our classes start no method-handle machinery a stock reduce task would not: under emulation
 * each invokedynamic string concatenation site spins method handles at its first use, together
 * about a second of CPU per reduce task (StartCost).
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

    private interface ClassBytes {
        void accept(String name, byte[] bytes) throws IOException;
    }

    /** Every class file next to {@code anchor}'s: in its jar, or under its class directory. */
    private static void forEachClass(Class<?> anchor, ClassBytes action) throws IOException, URISyntaxException {
        Path root = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        int seen = 0;
        if (Files.isDirectory(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                    action.accept(root.relativize(f).toString(), Files.readAllBytes(f));
                    seen++;
                }
            }
        } else {
            try (JarFile jar = new JarFile(root.toFile())) {
                for (JarEntry e : jar.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
                    try (InputStream in = jar.getInputStream(e)) {
                        action.accept(e.getName(), in.readAllBytes());
                    }
                    seen++;
                }
            }
        }
        assertTrue(seen > 10, "only " + seen + " classes found at " + root);
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
