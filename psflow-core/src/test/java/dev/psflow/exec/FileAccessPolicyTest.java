package dev.psflow.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A checkpoint root lets I/O ops touch what lies under it, however the path is spelled, and nothing else. */
class FileAccessPolicyTest {
  @TempDir Path tmp;

  private Path root() throws Exception {
    return Files.createDirectories(tmp.resolve("root"));
  }

  @Test
  void filesUnderTheRootAndInNewSubdirectoriesAreAllowed() throws Exception {
    FileAccessPolicy p = FileAccessPolicy.under(root());
    assertThat(p.check("SaveV2", root().resolve("model.ckpt-1.safetensors").toString()))
        .isEqualTo(root().toRealPath().resolve("model.ckpt-1.safetensors"));
    assertThat(p.check("SaveV2", root().resolve("new/dir/x").toString())).isEqualTo(root().toRealPath().resolve("new/dir/x"));
  }

  @Test
  void anythingOutsideIsPermissionDeniedNamingTheOpThePathAndTheRoot() throws Exception {
    FileAccessPolicy p = FileAccessPolicy.under(root());
    assertThatThrownBy(() -> p.check("SaveV2", "/etc/passwd"))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Code.PERMISSION_DENIED))
        .hasMessageContaining("SaveV2 may not touch /etc/passwd")
        .hasMessageContaining("outside this task's checkpoint root " + root().toRealPath())
        .hasMessageContaining("--checkpoint_root");
  }

  @Test
  void dotDotCannotClimbOut() throws Exception {
    FileAccessPolicy p = FileAccessPolicy.under(root());
    String escape = root() + "/a/../../outside.safetensors";
    assertThatThrownBy(() -> p.check("RestoreV2", escape)).hasMessageContaining("RestoreV2 may not touch " + escape);
  }

  @Test
  void aRelativePathIsResolvedAgainstTheWorkingDirectory() throws Exception {
    FileAccessPolicy p = FileAccessPolicy.under(root());
    assertThatThrownBy(() -> p.check("SaveV2", "model.ckpt")).isInstanceOf(StatusException.class);
  }

  @Test
  void aLinkInsideTheRootPointingOutIsFollowedAndRefused() throws Exception {
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.createSymbolicLink(root().resolve("link"), outside);
    FileAccessPolicy p = FileAccessPolicy.under(root());
    assertThatThrownBy(() -> p.check("SaveV2", root().resolve("link/x.safetensors").toString()))
        .hasMessageContaining("(" + outside.toRealPath().resolve("x.safetensors") + ")");
    Files.createSymbolicLink(root().resolve("file-link"), outside.resolve("secret"));
    Files.writeString(outside.resolve("secret"), "s");
    assertThatThrownBy(() -> p.check("RestoreV2", root().resolve("file-link").toString()))
        .isInstanceOf(StatusException.class);
  }

  @Test
  void aRootReachedThroughALinkStillHoldsItsFiles() throws Exception {
    Path link = Files.createSymbolicLink(tmp.resolve("root-link"), root());
    FileAccessPolicy p = FileAccessPolicy.under(link);
    assertThat(p.check("SaveV2", link.resolve("a").toString())).isEqualTo(root().toRealPath().resolve("a"));
  }

  @Test
  void unrestrictedAllowsAnything() {
    assertThat(FileAccessPolicy.UNRESTRICTED.check("SaveV2", "/anywhere/x")).isEqualTo(Path.of("/anywhere/x"));
  }
}
