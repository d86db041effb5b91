//! What every subcommand runs with, and the one method it implements.

use std::io::Write;

/// A subcommand's parsed arguments, runnable. Each subcommand's file defines its `Args` (the
/// doc comment of which is its `--help`) and implements this; `cli.rs` lists it once.
pub trait Run {
    /// Does the subcommand's work, printing results to `invocation.out`.
    fn run(self, invocation: &mut Invocation<'_>) -> anyhow::Result<()>;
}

/// The context of one run of the binary.
pub struct Invocation<'a> {
    /// Standard output (buffered; results only, progress goes to stderr).
    pub out: &'a mut dyn Write,
    /// The whole parsed command line, for arguments whose order matters.
    matches: &'a clap::ArgMatches,
    /// The command line's definition, for the subcommands that describe it (completions, man
    /// pages), so that they need not import the list of subcommands they are part of.
    definition: fn() -> clap::Command,
}

impl std::fmt::Debug for Invocation<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Invocation").finish_non_exhaustive()
    }
}

impl<'a> Invocation<'a> {
    /// An invocation printing to `out`.
    pub fn new(
        out: &'a mut dyn Write,
        matches: &'a clap::ArgMatches,
        definition: fn() -> clap::Command,
    ) -> Self {
        Invocation {
            out,
            matches,
            definition,
        }
    }

    /// `(position, value)` of every occurrence of argument `id` of the subcommand at `path`
    /// (`["eval"]`, `["idf", "build"]`): each `--param` belongs to the `--algorithm` before it.
    pub fn positioned(&self, path: &[&str], id: &str) -> Vec<(usize, String)> {
        let mut m = self.matches;
        for sub in path {
            let Some(next) = m.subcommand_matches(sub) else {
                return Vec::new();
            };
            m = next;
        }
        match (m.indices_of(id), m.get_many::<String>(id)) {
            (Some(i), Some(v)) => i.zip(v.cloned()).collect(),
            _ => Vec::new(),
        }
    }

    /// The command line's definition (with the help computed from the registries).
    pub fn definition(&self) -> clap::Command {
        (self.definition)()
    }
}
