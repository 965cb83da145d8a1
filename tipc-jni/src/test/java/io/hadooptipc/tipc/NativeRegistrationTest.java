package io.hadooptipc.tipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shim's functions reach the Java class by registration in JNI_OnLoad, not by exported
 * names spelling the class: a build that relocates (shades) the classes into another package
 * still gets a working library. Each copy loads the library from a file of its own, deleted once
 * loaded.
 */
class NativeRegistrationTest {
    private static final String PACKAGE = "io/hadooptipc/tipc/";
    /** Same length as PACKAGE, so the class files' constant pools can be rewritten in place, as a shader does. */
    private static final String RELOCATED_PACKAGE = "io/hadooptipc/tipx/";
    /** The classes that load the library, relocated together as a shading build relocates them. */
    private static final List<String> LOADING = List.of("TipcNative", "LibraryCopy");
    private static final String RELOCATED = RELOCATED_PACKAGE + "TipcNative";
    private static final int ENOENT = 2;

    @Test
    void worksInARelocatedCopyOfTheClass(@TempDir Path tmp) throws Exception {
        String tmpdir = System.getProperty("java.io.tmpdir");
        Class<?> relocated;
        Method loadFailure;
        System.setProperty("java.io.tmpdir", tmp.toString());
        try {
            relocated = Class.forName(RELOCATED.replace('/', '.'), true, new RelocatingLoader());
            loadFailure = relocated.getDeclaredMethod("loadFailure");
            loadFailure.setAccessible(true);
            assertNull(loadFailure.invoke(null), "the relocated copy loads its library");
        } finally {
            System.setProperty("java.io.tmpdir", tmpdir);
        }
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(), left.collect(Collectors.toList()), "the library's copy is deleted once loaded");
        }
        Method strerror = relocated.getDeclaredMethod("strerror", int.class);
        strerror.setAccessible(true);
        assertEquals("No such file or directory", strerror.invoke(null, ENOENT));
    }

    /** Defines the loading classes' bytes, every mention of their names relocated, as classes of another package. */
    private static final class RelocatingLoader extends ClassLoader {
        RelocatingLoader() {
            super(NativeRegistrationTest.class.getClassLoader());
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            String simpleName = name.substring(name.lastIndexOf('.') + 1);
            if (!name.equals((RELOCATED_PACKAGE + simpleName).replace('/', '.')) || !LOADING.contains(simpleName)) {
                throw new ClassNotFoundException(name);
            }
            try (InputStream in = getParent().getResourceAsStream(PACKAGE + simpleName + ".class")) {
                // ISO-8859-1 maps bytes to chars one to one, so the rewrite keeps every other byte.
                String bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                for (String loading : LOADING) {
                    bytes = bytes.replace(PACKAGE + loading, RELOCATED_PACKAGE + loading);
                }
                byte[] relocated = bytes.getBytes(StandardCharsets.ISO_8859_1);
                return defineClass(name, relocated, 0, relocated.length);
            } catch (IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }
    }
}
