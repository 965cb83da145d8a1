package io.hadooptipc.dist;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The classes a class file refers to, from its constant pool: every class entry, and
 * every {@code Lname;} in descriptors and signatures. What the JVM may load while
 * running the class's code is a subset of these.
 */
final class ClassReferences {
    private static final Pattern DESCRIPTOR_CLASS = Pattern.compile("L([\\w/$]+)[;<]");

    private ClassReferences() {
    }

    /** Binary names (dots) of the classes {@code classFile} refers to. */
    static Set<String> of(InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        List<Integer> classEntries = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1:
                    utf8[i] = in.readUTF();
                    break;
                case 7:
                    classEntries.add(in.readUnsignedShort());
                    break;
                case 8:
                case 16:
                case 19:
                case 20:
                    in.skipBytes(2);
                    break;
                case 15:
                    in.skipBytes(3);
                    break;
                case 3:
                case 4:
                case 9:
                case 10:
                case 11:
                case 12:
                case 17:
                case 18:
                    in.skipBytes(4);
                    break;
                case 5:
                case 6:
                    in.skipBytes(8);
                    i++; // a long or double takes two entries
                    break;
                default:
                    throw new IOException("unknown constant pool tag " + tag);
            }
        }
        Set<String> names = new TreeSet<>();
        for (int index : classEntries) {
            String name = utf8[index];
            if (name.startsWith("[")) {
                addDescriptorClasses(name, names);
            } else {
                names.add(name.replace('/', '.'));
            }
        }
        for (String s : utf8) {
            if (s != null && (s.startsWith("(") || s.startsWith("L") || s.startsWith("<") || s.startsWith("["))) {
                addDescriptorClasses(s, names);
            }
        }
        return names;
    }

    private static void addDescriptorClasses(String descriptor, Set<String> names) {
        Matcher m = DESCRIPTOR_CLASS.matcher(descriptor);
        while (m.find()) {
            names.add(m.group(1).replace('/', '.'));
        }
    }
}
