package dev.once.app;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;

/** {@code once completion}: the bash/zsh completion script, generated from the commands. */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    description = {
      "Prints a bash/zsh completion script for once (commands, subcommands and options).",
      "Install for the current shell: source <(./once completion)",
      "For every new bash: ./once completion > ~/.local/share/bash-completion/completions/once"
    })
final class CompletionCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    CommandLine root = spec.root().commandLine();
    System.out.print(AutoComplete.bash("once", root));
    return 0;
  }
}
