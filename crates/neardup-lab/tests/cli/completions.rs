//! `neardup completions`.

use super::*;

#[test]
fn completions_for_every_shell_and_quiet_on_a_closed_pipe() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = ok(&["completions", shell]);
        assert!(script.contains("neardup"), "{shell}: {script}");
        assert!(script.contains("similarity"), "{shell} lists subcommands");
    }
    // `neardup completions bash | head -1`: the reader goes away before the script is written.
    // clap_complete's own writer panicked here (exit 101) and broke CI's install check.
    let mut child = Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(["completions", "bash"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
