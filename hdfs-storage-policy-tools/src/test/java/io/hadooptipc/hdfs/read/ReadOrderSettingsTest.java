package io.hadooptipc.hdfs.read;

import static org.apache.hadoop.fs.StorageType.DISK;
import static org.apache.hadoop.fs.StorageType.SSD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class ReadOrderSettingsTest {
    @Test
    void shippedDefaultsBuildAModelThatPrefersARemoteSsd() {
        ReadCostModel model = ReadOrderSettings.costModel(new Configuration(false)).orElseThrow();
        assertEquals(1000.0, model.expectedMbps(SSD, 2));
        assertEquals(150.0, model.expectedMbps(DISK, 0));
    }

    @Test
    void siteValuesOverrideDefaults() {
        Configuration conf = new Configuration(false);
        conf.set(ReadOrderSettings.NETWORK_MBPS, "0=5000, 2=100");
        ReadCostModel model = ReadOrderSettings.costModel(conf).orElseThrow();
        assertEquals(100.0, model.expectedMbps(SSD, 4));
    }

    @Test
    void canBeSwitchedOff() {
        Configuration conf = new Configuration(false);
        conf.set(ReadOrderSettings.ENABLED, "false");
        assertTrue(ReadOrderSettings.costModel(conf).isEmpty());
    }

    @Test
    void badValuesNameTheKeyAndTheValue() {
        assertBad(ReadOrderSettings.STORAGE_MBPS, "SSD=fast", "'SSD=fast'");
        assertBad(ReadOrderSettings.STORAGE_MBPS, "FLASH=900", "'FLASH'");
        assertBad(ReadOrderSettings.STORAGE_MBPS, "SSD=-1", "'SSD=-1'");
        assertBad(ReadOrderSettings.NETWORK_MBPS, "near=10", "'near'");
        assertBad(ReadOrderSettings.NETWORK_MBPS, "2=1200", "distance 0");
        assertBad(ReadOrderSettings.STORAGE_TYPES, "SSD,ARCHIVE,PROVIDED", "PROVIDED");
        assertBad(ReadOrderSettings.ENABLED, "yes", "'yes'");
    }

    private static void assertBad(String key, String value, String mentioned) {
        Configuration conf = new Configuration(false);
        conf.set(key, value);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReadOrderSettings.costModel(conf));
        assertTrue(e.getMessage().contains(key) && e.getMessage().contains(mentioned), e.getMessage());
    }
}
