package io.hadooptipc.shuffle.doctor;

import io.hadooptipc.shuffle.TipcShuffleConfig;
import org.apache.hadoop.conf.Configuration;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * {@code hadoop-tipc doctor [--json]}: can this node carry the TIPC shuffle? Reads the
 * node's yarn-site.xml and mapred-site.xml from the class path (HADOOP_CONF_DIR first),
 * prints one line per check, or one JSON object, and exits 0 when ready, 1 when not,
 * 2 on a usage error.
 */
public final class Doctor {
    static final String USAGE = "usage: hadoop-tipc doctor [--json]";

    private Doctor() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        List<String> options = Arrays.asList(args);
        if (!(options.isEmpty() || options.equals(Arrays.asList("--json")))) {
            err.println(USAGE);
            return 2;
        }
        DoctorReport report = NodeDoctor.forThisNode(nodeConfiguration()).examine();
        out.print(options.isEmpty() ? report.text() : report.json());
        out.flush();
        return report.ready() ? 0 : 1;
    }

    /** The configuration a NodeManager here runs with: yarn-site.xml wins over mapred-site.xml. */
    static Configuration nodeConfiguration() {
        Configuration conf = new Configuration();
        conf.addResource("mapred-site.xml");
        conf.addResource("yarn-site.xml");
        return conf;
    }
}
