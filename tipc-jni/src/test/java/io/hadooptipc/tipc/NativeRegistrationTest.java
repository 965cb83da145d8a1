package io.hadooptipc.tipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The shim's functions reach the Java class by registration in JNI_OnLoad, not by exported
 * names spelling the class: a build that relocates (shades) the classes into another package
 * still gets a working library.
 */
class NativeRegistrationTest {
    private static final String NAME = "io/hadooptipc/tipc/TipcNative";
    /** Same length as NAME, so the class file's constant pool can be rewritten in place, as a shader does. */
    private static final String RELOCATED = "io/hadooptipc/tipx/TipcNative";
    private static final int ENOENT = 2;

    @Test
    void worksInARelocatedCopyOfTheClass() throws Exception {
        Class<?> relocated = new RelocatingLoader().loadClass(RELOCATED.replace('/', '.'));
        Method loadFailure = relocated.getDeclaredMethod("loadFailure");
        loadFailure.setAccessible(true);
        assertNull(loadFailure.invoke(null), "the relocated copy loads its library");
        Method strerror = relocated.getDeclaredMethod("strerror", int.class);
        strerror.setAccessible(true);
        assertEquals("No such file or directory", strerror.invoke(null, ENOENT));
    }

    /** Defines TipcNative's bytes, every mention of its name relocated, as a class of another package. */
    private static final class RelocatingLoader extends ClassLoader {
        RelocatingLoader() {
            super(NativeRegistrationTest.class.getClassLoader());
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            if (!name.equals(RELOCATED.replace('/', '.'))) {
                throw new ClassNotFoundException(name);
            }
            try (InputStream in = getParent().getResourceAsStream(NAME + ".class")) {
                // ISO-8859-1 maps bytes to chars one to one, so the rewrite keeps every other byte.
                String bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).replace(NAME, RELOCATED);
                byte[] relocated = bytes.getBytes(StandardCharsets.ISO_8859_1);
                return defineClass(name, relocated, 0, relocated.length);
            } catch (IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }
    }
}
