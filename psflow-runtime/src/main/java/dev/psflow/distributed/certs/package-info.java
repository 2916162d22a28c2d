/**
 * The certificates of a cluster's mutual TLS: a CA of its own and one certificate per task and for
 * clients, each naming its role, written as a {@code --tls_dir}
 * ({@link dev.psflow.cluster.TlsConfig} describes the layout). Transport-free: no io.grpc here.
 */
package dev.psflow.distributed.certs;
