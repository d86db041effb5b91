//! `neardup completions SHELL`: a shell completion script from the command line's own
//! definition (clap_complete).

use anyhow::Result;

use super::invocation::{Invocation, Run};

/// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
///
/// For example: `neardup completions bash > ~/.local/share/bash-completion/completions/neardup`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell.
    pub shell: clap_complete::Shell,
}

impl Run for Args {
    fn run(self, invocation: &mut Invocation<'_>) -> Result<()> {
        // clap_complete panics on a write error; render into memory and write ourselves, so
        // `neardup completions bash | head` ends quietly like every other command.
        let mut script = Vec::new();
        clap_complete::generate(
            self.shell,
            &mut invocation.definition(),
            "neardup",
            &mut script,
        );
        invocation.out.write_all(&script)?;
        Ok(())
    }
}
