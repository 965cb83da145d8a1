package io.hadooptipc.shuffle.server;

import javax.crypto.SecretKey;

/** The jobs this NodeManager serves: each one's job-token secret and submitting user. */
public interface JobRegistry {

    /** The job token's secret, or null for a job this node does not know. */
    SecretKey secret(String jobId);

    /** The user whose files the job's map outputs are, or null. */
    String user(String jobId);
}
