package dev.psflow.exec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Where the ops of a device that touch the file system (SaveV2, RestoreV2) may read and write: the
 * task's checkpoint root, or anywhere (a local session: its graph is its own process's). A path is
 * made absolute and normalized ({@code ..} removed), and the longest part of it that exists is
 * resolved through symbolic links, so neither {@code root/../x} nor a link inside the root pointing
 * out of it escapes. Anything outside is PERMISSION_DENIED naming the path and the root. Checked
 * by the kernel, on the task that does the I/O. Immutable, thread-safe.
 *
 * <pre>{@code
 * FileAccessPolicy p = FileAccessPolicy.under(Path.of("/data/ckpt"));
 * Path file = p.check("SaveV2", "/data/ckpt/model.ckpt-200.shard-0-of-1.safetensors");  // allowed
 * p.check("SaveV2", "/etc/passwd");  // PERMISSION_DENIED
 * }</pre>
 *
 * <p>The check runs just before the I/O; a process on the task's own machine that swaps a directory
 * for a link in between is outside this threat model (it can write the files itself).
 */
public final class FileAccessPolicy {
  /** No restriction: for sessions in the user's own process. */
  public static final FileAccessPolicy UNRESTRICTED = new FileAccessPolicy(null);

  private final Path root; // real path; null: unrestricted

  private FileAccessPolicy(Path root) {
    this.root = root;
  }

  /** Only under {@code root} (created if missing); throws naming it when it cannot be. */
  public static FileAccessPolicy under(Path root) {
    try {
      Files.createDirectories(root);
      return new FileAccessPolicy(root.toRealPath());
    } catch (IOException e) {
      throw new IllegalArgumentException("checkpoint root " + root + " cannot be created or read: " + e.getMessage(), e);
    }
  }

  /** The root (a real path), or null when unrestricted. */
  public Path root() {
    return root;
  }

  /**
   * The file {@code path} names, when {@code op} may read or write it; otherwise
   * PERMISSION_DENIED naming the op, the path and the root.
   */
  public Path check(String op, String path) {
    Path p;
    try {
      p = Path.of(path);
    } catch (InvalidPathException e) {
      throw StatusException.invalidArgument(op + ": '" + path + "' is not a file path: " + e.getReason());
    }
    if (root == null) {
      return p;
    }
    Path resolved = resolve(p.toAbsolutePath().normalize());
    if (!resolved.startsWith(root)) {
      throw StatusException.permissionDenied(op + " may not touch " + path
          + (resolved.equals(p) ? "" : " (" + resolved + ")") + ": it is outside this task's checkpoint root "
          + root + " (start the task with --checkpoint_root=DIR to allow another directory)");
    }
    return resolved;
  }

  /** {@code p} with its longest existing prefix replaced by its real path (links followed). */
  private static Path resolve(Path p) {
    Path existing = p;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return p;
    }
    try {
      return existing.toRealPath().resolve(existing.relativize(p)).normalize();
    } catch (IOException e) {
      // A dangling link: where a write through it would land cannot be told, so it is refused.
      throw StatusException.permissionDenied("cannot resolve " + existing + " (a dangling link?): " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    return root == null ? "anywhere" : "under " + root;
  }
}
