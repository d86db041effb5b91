//! `--config FILE`: a command's flags from a TOML file, by their long names (`text-field` or
//! `text_field`), as datatrove and text-dedup users keep a pipeline's settings in a file.
//! The file's flags come first, so the command line's own override them (single-valued flags
//! take the last value given; repeatable ones, `param`, add up).
//!
//! Values: a string or number is the flag's value; `true` is a switch given, `false` one left
//! out; an array repeats the flag; a table gives `key=value` pairs (`[param] threshold = 0.7`
//! is `--param threshold=0.7`). `inputs` (or the command's positional name) are its positional
//! arguments, used when the command line gives none. Unknown keys are refused with the file,
//! the key and the valid names, before any work.

use std::ffi::OsString;
use std::path::Path;

use anyhow::{Context, Result, bail};

/// `argv` with the `--config FILE` of its subcommand replaced by the flags the file holds.
pub fn expand(argv: Vec<OsString>, command: &clap::Command) -> Result<Vec<OsString>> {
    let Some(at) = argv
        .iter()
        .position(|a| a == "--config" || starts_with(a, "--config="))
    else {
        return Ok(argv);
    };
    // The subcommand: the first argument naming one, before --config.
    let Some((sub_at, sub)) = argv[..at]
        .iter()
        .enumerate()
        .find_map(|(i, a)| command.find_subcommand(a.to_str()?).map(|c| (i, c)))
    else {
        return Ok(argv);
    };
    if !sub.get_arguments().any(|a| a.get_id() == "config") {
        return Ok(argv);
    }
    let (path, consumed) = match argv[at].to_str().and_then(|a| a.strip_prefix("--config=")) {
        Some(p) => (OsString::from(p), 1),
        None => match argv.get(at + 1) {
            Some(p) => (p.clone(), 2),
            None => bail!("--config needs a file"),
        },
    };
    let mut rest: Vec<OsString> = argv[sub_at + 1..].to_vec();
    rest.drain(at - sub_at - 1..at - sub_at - 1 + consumed);
    let has_positional = positional_given(sub, &rest);
    let (flags, positionals) = from_file(Path::new(&path), sub)?;
    let flags = without_params_given(flags, &rest);
    let mut out: Vec<OsString> = argv[..=sub_at].to_vec();
    out.extend(flags);
    out.extend(rest);
    if !has_positional {
        out.extend(positionals);
    }
    Ok(out)
}

/// The file's flags without the `--param key=…` whose key the command line sets itself (a
/// parameter may be given once: the command line's is the one meant).
fn without_params_given(flags: Vec<OsString>, command_line: &[OsString]) -> Vec<OsString> {
    let key = |kv: &OsString| {
        kv.to_str()
            .and_then(|s| s.split_once('='))
            .map(|(k, _)| k.trim().to_string())
    };
    let mut given = Vec::new();
    for (i, a) in command_line.iter().enumerate() {
        if a == "--param" {
            given.extend(command_line.get(i + 1).and_then(key));
        } else if let Some(kv) = a.to_str().and_then(|s| s.strip_prefix("--param=")) {
            given.extend(key(&OsString::from(kv)));
        }
    }
    let mut out = Vec::with_capacity(flags.len());
    let mut i = 0;
    while i < flags.len() {
        if flags[i] == "--param"
            && let Some(k) = flags.get(i + 1).and_then(key)
            && given.contains(&k)
        {
            i += 2;
            continue;
        }
        out.push(flags[i].clone());
        i += 1;
    }
    out
}

fn starts_with(a: &OsString, prefix: &str) -> bool {
    a.to_str().is_some_and(|s| s.starts_with(prefix))
}

/// Whether the command line gives a positional argument (a word that is no flag's value).
fn positional_given(sub: &clap::Command, args: &[OsString]) -> bool {
    let mut i = 0;
    while i < args.len() {
        let Some(a) = args[i].to_str() else {
            return true;
        };
        if let Some(flag) = a.strip_prefix("--") {
            let takes_value = !flag.contains('=')
                && sub
                    .get_arguments()
                    .find(|x| x.get_long() == Some(flag))
                    .is_some_and(|x| x.get_action().takes_values());
            i += if takes_value { 2 } else { 1 };
        } else if a.starts_with('-') && a.len() == 2 {
            let takes_value = sub
                .get_arguments()
                .find(|x| x.get_short().map(String::from).as_deref() == Some(&a[1..]))
                .is_some_and(|x| x.get_action().takes_values());
            i += if takes_value { 2 } else { 1 };
        } else {
            return true;
        }
    }
    false
}

/// The flags (and positionals) a config file gives `sub`.
fn from_file(path: &Path, sub: &clap::Command) -> Result<(Vec<OsString>, Vec<OsString>)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("--config {}", path.display()))?;
    let table: toml::Table =
        toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: not TOML: {e}", path.display()))?;
    let (mut flags, mut positionals) = (Vec::new(), Vec::new());
    for (key, value) in table {
        let long = key.replace('_', "-");
        let arg = sub.get_arguments().find(|a| {
            a.get_long() == Some(long.as_str())
                || (a.is_positional() && (a.get_id() == key.as_str() || key == "inputs"))
        });
        let Some(arg) = arg.filter(|a| a.get_id() != "config") else {
            let valid: Vec<String> = sub
                .get_arguments()
                .filter(|a| a.get_id() != "config" && a.get_id() != "help")
                .map(|a| a.get_long().map_or(a.get_id().to_string(), str::to_string))
                .collect();
            bail!(
                "{}: `{key}` is not a flag of `neardup {}`; its flags are: {}",
                path.display(),
                sub.get_name(),
                valid.join(", ")
            );
        };
        let words = values(&value).with_context(|| format!("{}: `{key}`", path.display()))?;
        if arg.is_positional() {
            positionals.extend(words.into_iter().flatten().map(OsString::from));
            continue;
        }
        for word in words {
            flags.push(OsString::from(format!("--{long}")));
            flags.extend(word.map(OsString::from));
        }
    }
    Ok((flags, positionals))
}

/// One flag occurrence per item: `Some(value)`, or `None` for a switch given; a switch left
/// out (`false`) gives none.
fn values(value: &toml::Value) -> Result<Vec<Option<String>>> {
    use toml::Value as V;
    Ok(match value {
        V::Boolean(true) => vec![None],
        V::Boolean(false) => vec![],
        V::String(s) => vec![Some(s.clone())],
        V::Integer(_) | V::Float(_) => vec![Some(value.to_string())],
        V::Array(items) => items
            .iter()
            .map(|v| match v {
                V::String(s) => Ok(Some(s.clone())),
                V::Integer(_) | V::Float(_) | V::Boolean(_) => Ok(Some(v.to_string())),
                other => bail!("an array item must be a string or number, not {other}"),
            })
            .collect::<Result<_>>()?,
        V::Table(t) => t
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    V::String(s) => s.clone(),
                    other => other.to_string(),
                };
                Some(format!("{k}={v}"))
            })
            .collect(),
        V::Datetime(d) => vec![Some(d.to_string())],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(v: &[OsString]) -> Vec<String> {
        v.iter().map(|s| s.to_string_lossy().into_owned()).collect()
    }

    /// A file's flags come first (the command line overrides them), tables and arrays repeat
    /// `--param`, switches appear or not, inputs fill in when the command line has none, and
    /// an unknown key is refused naming the file and the valid flags.
    #[test]
    fn a_config_file_becomes_the_flags_it_names() {
        let dir = std::env::temp_dir().join(format!("neardup-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("dedup.toml");
        std::fs::write(
            &file,
            "inputs = [\"a.jsonl\"]\noutput = \"out\"\ntext_field = \"meta.body\"\nwrite-text = true\n\
             no_inflated_copy = false\nmin_words = 5\n[param]\nthreshold = 0.7\nshingle = \"char\"\n",
        )
        .unwrap();
        let cmd = crate::cli::command();
        let argv = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        let got = expand(
            argv(&[
                "neardup",
                "dedup",
                "--config",
                file.to_str().unwrap(),
                "--min-words",
                "3",
            ]),
            &cmd,
        )
        .unwrap();
        let got = words(&got);
        assert_eq!(got[..2], ["neardup", "dedup"]);
        let joined = got.join(" ");
        for want in [
            "--output out",
            "--text-field meta.body",
            "--write-text",
            "--min-words 5",
            "--param threshold=0.7",
            "--param shingle=char",
        ] {
            assert!(joined.contains(want), "{want}: {joined}");
        }
        assert!(!joined.contains("inflated"), "{joined}");
        // The command line's flag comes after the file's, so it wins; the inputs come last.
        assert!(
            joined.find("--min-words 5") < joined.find("--min-words 3"),
            "{joined}"
        );
        assert_eq!(got.last().unwrap(), "a.jsonl");
        // Inputs on the command line replace the file's.
        let given = words(
            &expand(
                argv(&[
                    "neardup",
                    "dedup",
                    "b.jsonl",
                    "--config",
                    file.to_str().unwrap(),
                ]),
                &cmd,
            )
            .unwrap(),
        );
        assert!(given.contains(&"b.jsonl".to_string()) && !given.contains(&"a.jsonl".to_string()));
        std::fs::write(&file, "outptu = \"x\"\n").unwrap();
        let e = expand(
            argv(&["neardup", "dedup", "--config", file.to_str().unwrap()]),
            &cmd,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("dedup.toml") && e.contains("`outptu`") && e.contains("output"),
            "{e}"
        );
    }
}
