package io.hadooptipc.shuffle.server;

import javax.crypto.SecretKey;
import java.io.IOException;

/** The jobs this NodeManager serves: each one's job-token secret and submitting user. */
public interface JobRegistry {

    /**
     * The job token's secret.
     *
     * @throws IOException for a job this node does not know, saying so as the stock
     *                     handler's answer does (its secret manager's {@code InvalidToken})
     */
    SecretKey secret(String jobId) throws IOException;

    /** The user whose files the job's map outputs are, or null. */
    String user(String jobId);
}
