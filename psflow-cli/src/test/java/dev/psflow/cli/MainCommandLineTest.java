package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@code psflow} command line: a command line that names its program is parsed with that
 * program alone (a task's start-up skips building every other program's flags), and everything
 * else still sees them all.
 */
@DisplayName("psflow's command line: one program when it is named, all of them otherwise")
class MainCommandLineTest {
  @Test
  void helpListsEveryProgram() {
    String out = PsflowInJvm.stdout("--help");
    assertThat(out).contains("mnist-replica", "local-cluster", "explain", "server", "certs", "status",
        "embedding-replica", "in-graph-replica", "toy");
  }

  @Test
  void helpCommandDescribesAnyProgram() {
    assertThat(PsflowInJvm.stdout("help", "mnist-replica")).contains("Usage: psflow mnist-replica", "--job_name");
  }

  @Test
  void aNamedProgramParsesItsOwnFlags() {
    PsflowInJvm.Result r = PsflowInJvm.run("mnist", "--no_such_flag");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("Unknown option: '--no_such_flag'", "psflow mnist --help");
  }

  @Test
  void anUnknownProgramIsOneErrorLine() {
    PsflowInJvm.Result r = PsflowInJvm.run("no-such-program");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("'no-such-program'").doesNotContain("Exception");
  }

  @Test
  void localClusterStillFindsItsProgram() {
    PsflowInJvm.Result r = PsflowInJvm.run("local-cluster", "--ps=1", "--workers=1", "no-such-program");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("no-such-program").doesNotContain("Exception");
  }

  @Test
  void localClusterGetsItselfAndTheProgramsItsArgumentsName() {
    assertThat(Main.commandsFor("local-cluster", "--ps=1", "mnist-replica", "--train_steps=10"))
        .containsExactly(MnistReplicaCommand.class, LocalClusterCommand.class);
    // A flag's value that names a program brings that one too; the real PROGRAM is still there.
    assertThat(Main.commandsFor("local-cluster", "--kill", "toy", "mnist-replica"))
        .containsExactly(MnistReplicaCommand.class, ToyCommand.class, LocalClusterCommand.class);
  }

  @Test
  void anythingElseGetsEveryProgram() {
    List<Class<?>> all = Main.commandsFor();
    assertThat(all).contains(MnistReplicaCommand.class, LocalClusterCommand.class, CertsCommand.class);
    assertThat(Main.commandsFor("help", "mnist")).isEqualTo(all);
    assertThat(Main.commandsFor("--help")).isEqualTo(all);
    assertThat(Main.commandsFor("local-cluster", "--ps=1", "no-such-program")).isEqualTo(all);
    assertThat(Main.commandsFor("mnist", "--train_steps=10")).containsExactly(MnistCommand.class);
  }

  @Test
  void localClusterListsEveryProgramWhenItsProgramIsUnknown() {
    PsflowInJvm.Result r = PsflowInJvm.run("local-cluster", "--kill=toy@1", "mnist-replicas");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("unknown PROGRAM 'mnist-replicas'; one of: ").contains("mnist-replica", "toy",
        "in-graph-replica");
  }
}
