package dev.psflow.cli;

import dev.psflow.examples.TaskSecurity;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The flags of every program that starts a task's server or talks to one: {@code --tls_dir},
 * {@code --insecure}, {@code --checkpoint_root} (a picocli mixin). See {@link TaskSecurity}.
 */
public final class SecurityFlags {
  static final String TLS_DIR = "--tls_dir";
  static final String INSECURE = "--insecure";

  @Option(names = TLS_DIR, paramLabel = "DIR", description = "Mutual TLS with the cluster's certificates in DIR: "
      + "ca.crt, <job>-<index>.crt/.key for each task, client.crt/.key for clients (psflow certs makes them). "
      + "Every connection is refused unless its peer's certificate was signed by ca.crt.")
  Path tlsDir;

  @Option(names = INSECURE, description = "Plaintext, without TLS: anyone who can reach a port can read, change and "
      + "reset the model (logged as a warning). One of --tls_dir or --insecure is required.")
  boolean insecure;

  @Option(names = "--checkpoint_root", paramLabel = "DIR", description = "The only directory under which this task's "
      + "SaveV2/RestoreV2 may write and read (default: --log_dir when the program has one, else the temporary "
      + "directory java.io.tmpdir).")
  Path checkpointRoot;

  TaskSecurity security() {
    return new TaskSecurity(tlsDir, insecure, checkpointRoot);
  }
}
