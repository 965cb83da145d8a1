package io.hadooptipc.shuffle.client;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The bytecode of a class's methods, read from its class file: what a copied method is pinned to,
 * so that a Hadoop release that changes the original fails a test instead of diverging silently.
 */
final class MethodBytecode {
    private MethodBytecode() {
    }

    /** SHA-256 (hex) of each method's instructions (name + descriptor to hash), from the class file {@code type} was loaded from. */
    static Map<String, String> fingerprints(Class<?> type) throws IOException {
        String file = type.getName().replace('.', '/') + ".class";
        try (InputStream raw = type.getClassLoader().getResourceAsStream(file)) {
            if (raw == null) {
                throw new IOException("no class file " + file);
            }
            return fingerprints(raw);
        }
    }

    /** The same, from a class file's bytes. */
    static Map<String, String> fingerprints(InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readInt(); // minor and major version
        String[] utf8 = new String[in.readUnsignedShort()];
        for (int i = 1; i < utf8.length; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1:
                    utf8[i] = in.readUTF();
                    break;
                case 3:
                case 4:
                case 9:
                case 10:
                case 11:
                case 12:
                case 17:
                case 18:
                    skip(in, 4);
                    break;
                case 5:
                case 6:
                    skip(in, 8);
                    i++; // a long or double takes two slots
                    break;
                case 7:
                case 8:
                case 16:
                case 19:
                case 20:
                    skip(in, 2);
                    break;
                case 15:
                    skip(in, 3);
                    break;
                default:
                    throw new IOException("unknown constant pool tag " + tag);
            }
        }
        skip(in, 6); // access flags, this class, super class
        skip(in, 2L * in.readUnsignedShort()); // interfaces
        int fields = in.readUnsignedShort();
        for (int i = 0; i < fields; i++) {
            skip(in, 6);
            skipAttributes(in);
        }
        Map<String, String> methods = new HashMap<>();
        int count = in.readUnsignedShort();
        for (int i = 0; i < count; i++) {
            skip(in, 2);
            String name = utf8[in.readUnsignedShort()] + utf8[in.readUnsignedShort()];
            int attributes = in.readUnsignedShort();
            for (int a = 0; a < attributes; a++) {
                String attribute = utf8[in.readUnsignedShort()];
                byte[] body = in.readNBytes(in.readInt());
                if (attribute.equals("Code")) {
                    methods.put(name, sha256(instructions(body)));
                }
            }
        }
        return methods;
    }

    /**
     * A Code attribute's stack and local sizes, instructions and exception table, without its line
     * numbers and local variable names (which move when unrelated code above them does).
     */
    private static byte[] instructions(byte[] code) {
        int length = 8 + ((code[4] & 0xFF) << 24 | (code[5] & 0xFF) << 16 | (code[6] & 0xFF) << 8 | code[7] & 0xFF);
        int handlers = (code[length] & 0xFF) << 8 | code[length + 1] & 0xFF;
        return Arrays.copyOf(code, length + 2 + 8 * handlers);
    }

    private static void skipAttributes(DataInputStream in) throws IOException {
        int attributes = in.readUnsignedShort();
        for (int a = 0; a < attributes; a++) {
            skip(in, 2);
            skip(in, in.readInt() & 0xFFFFFFFFL);
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return String.format("%064x", new BigInteger(1, MessageDigest.getInstance("SHA-256").digest(bytes)));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Skips exactly {@code n} bytes (InputStream.skipNBytes from Java 12; the 3.4 tests run on Java 11). */
    private static void skip(DataInputStream in, long n) throws IOException {
        in.readFully(new byte[Math.toIntExact(n)]);
    }
}
