//! The steps after a run, named where the user looks (the printed summary and the run's
//! `README.md`): `inspect` what was found, `label` pairs of the corpus, `calibrate` on them —
//! which prints the `dedup` command to run next. A new user found none of these from `dedup`'s
//! output (#53).

use std::path::Path;

/// One step: the command, and what it gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextStep {
    /// A command line, quoted for a POSIX shell.
    pub command: String,
    /// What it gives, in a few words.
    pub why: &'static str,
}

/// The steps after a run writing `output` from `inputs` with `algorithm`. Labels are drawn
/// from the first input (`label` reads one corpus file); `--from` makes their strata follow a
/// minhash-lsh run's similarity.
pub fn next_steps(output: &Path, inputs: &[String], algorithm: &str) -> Vec<NextStep> {
    let out = shell_word(&output.display().to_string());
    let corpus = inputs
        .first()
        .map_or_else(|| "CORPUS".to_string(), |c| shell_word(c));
    let labels = "labels.csv";
    let from = if algorithm == "minhash-lsh" {
        format!(" --from {out}")
    } else {
        String::new()
    };
    vec![
        NextStep {
            command: format!("neardup inspect {out}"),
            why: "the pairs found, side by side, and the largest clusters (a page to open)",
        },
        NextStep {
            command: format!("neardup label --corpus {corpus}{from} --output {labels}"),
            why: "say of about 100 pairs whether they are duplicates",
        },
        NextStep {
            command: format!("neardup calibrate --corpus {corpus} --pairs {labels}"),
            why: "the parameters your labels choose, and the dedup command to run with them",
        },
    ]
}

/// Quotes a word for a POSIX shell when it needs it.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_name_the_run_and_quote_what_a_shell_would_split() {
        let steps = next_steps(Path::new("my out"), &["news.jsonl".into()], "minhash-lsh");
        assert_eq!(steps[0].command, "neardup inspect 'my out'");
        assert_eq!(
            steps[1].command,
            "neardup label --corpus news.jsonl --from 'my out' --output labels.csv"
        );
        assert!(
            steps[2]
                .command
                .starts_with("neardup calibrate --corpus news.jsonl")
        );
        let simhash = next_steps(Path::new("o"), &["a.jsonl".into()], "simhash");
        assert!(!simhash[1].command.contains("--from"));
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}
