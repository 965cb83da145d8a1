package io.hadooptipc.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

import javax.xml.parsers.DocumentBuilderFactory;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.w3c.dom.NodeList;

import io.hadooptipc.hdfs.affinity.AffinitySettings;
import io.hadooptipc.hdfs.read.ReadOrderSettings;

/** Every key the code reads has its default in the shipped XML and a row in the module README. */
class SettingsDocumentedTest {
    private static Set<String> keysInCode() throws IllegalAccessException {
        Set<String> keys = new TreeSet<>();
        for (Class<?> settings : new Class<?>[] {ReadOrderSettings.class, AffinitySettings.class}) {
            for (Field f : settings.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class && !f.getName().equals("PREFIX")) {
                    keys.add((String) f.get(null));
                }
            }
        }
        return keys;
    }

    @Test
    void shippedXmlHoldsExactlyTheKeysTheCodeReads() throws Exception {
        Set<String> keysInXml = new TreeSet<>();
        try (InputStream xml = Settings.class.getClassLoader().getResourceAsStream(Settings.DEFAULT_RESOURCE)) {
            NodeList names = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml)
                    .getElementsByTagName("name");
            for (int i = 0; i < names.getLength(); i++) {
                keysInXml.add(names.item(i).getTextContent().strip());
            }
        }
        assertEquals(keysInCode(), keysInXml);
    }

    @Test
    void moduleReadmeListsEveryKeyWithItsDefault() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        Configuration defaults = new Configuration(false);
        defaults.addResource(Settings.DEFAULT_RESOURCE);
        for (String key : keysInCode()) {
            String value = defaults.get(key, "");
            String row = "| `" + key + "` | " + (value.isEmpty() ? "(empty)" : "`" + value + "`") + " |";
            assertTrue(readme.contains(row), "README.md lacks the row starting " + row);
        }
    }
}
