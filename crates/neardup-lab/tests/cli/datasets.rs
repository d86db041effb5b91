//! The real corpora of ../shared/datasets (skipped when it is absent).

use super::*;

#[test]
fn shared_datasets_verify() {
    let Some(dir) = shared_data("bible-en.jsonl.gz") else {
        return;
    };
    let out = ok(&["datasets", "verify", "--data-dir", dir.to_str().unwrap()]);
    for name in ["bible-en", "licenses", "licenses-notices", "20news"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(name) && l.contains(" ok ")),
            "{out}"
        );
    }
    // A wrong checksum is an error naming the file.
    let fake = tmp("fake-data");
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(fake.join("bible-en.jsonl.gz"), b"not the corpus").unwrap();
    let e = err(&[
        "datasets",
        "verify",
        "--data-dir",
        fake.to_str().unwrap(),
        "bible-en",
    ]);
    assert!(e.contains("bible-en.jsonl.gz: wrong checksum"), "{e}");
}

#[test]
fn shared_bible_loads_with_labels() {
    let Some(dir) = shared_data("bible-en.jsonl.gz") else {
        return;
    };
    let bible = dir.join("bible-en.jsonl.gz");
    let out = ok(&[
        "eval",
        "--corpus",
        bible.to_str().unwrap(),
        "--algorithm",
        "minhash-lsh",
        "--param",
        "threshold=0.3",
    ]);
    // 1,189 clusters of 5 → 10 pairs each
    assert_eq!(
        eval_fields(&out, &["docs", "true_pairs"]),
        ["5945", "11890"]
    );
}

/// A `.tar.gz` holding `files` (path, text), as GitHub's archives are laid out.
fn tar_gz(files: &[(&str, &str)]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    for (path, text) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, text.as_bytes()).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

/// Serves each (path, body) of `files` (404 elsewhere) on the loopback interface, `requests`
/// times; the base URL.
fn serve(files: Vec<(&'static str, Vec<u8>)>, requests: usize) -> String {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let url = format!("http://{}", server.server_addr().to_ip().unwrap());
    std::thread::spawn(move || {
        for request in server.incoming_requests().take(requests) {
            let response = match files.iter().find(|(path, _)| request.url() == *path) {
                Some((_, body)) => tiny_http::Response::from_data(body.clone()).boxed(),
                None => tiny_http::Response::empty(404).boxed(),
            };
            let _ = request.respond(response);
        }
    });
    url
}

/// `datasets fetch` downloads, converts and checks before it writes: an archive that is not
/// the manifest's snapshot (here a two-message fixture) is refused with what was built, and
/// nothing is left in the data directory; a missing archive is the download's error.
#[test]
fn fetch_checks_what_it_built_before_writing() {
    let archive = tar_gz(&[
        (
            "mlnn_P65-7393be6/data/20news-bydate-train/sci.space/1",
            "Subject: One\n\nfirst body\n",
        ),
        (
            "mlnn_P65-7393be6/data/20news-bydate-test/sci.space/2",
            "Subject: Two\n\nsecond body\n",
        ),
        ("mlnn_P65-7393be6/README.md", "the repository's other files"),
    ]);
    let url = serve(vec![("/snapshot.tar.gz", archive)], 2);
    let data = tmp("fetch-data");
    let _ = std::fs::remove_dir_all(&data);
    let d = data.to_str().unwrap();
    let e = err(&[
        "datasets",
        "fetch",
        "20news",
        "--data-dir",
        d,
        "--url",
        &format!("{url}/snapshot.tar.gz"),
    ]);
    assert!(
        e.contains("the 2 documents built have content sha256")
            && e.contains("b6976a0fef96bda8c2543ca101170cda4b1dcfcd0280474eaaaa34b7362ef97f")
            && e.contains("nothing was written"),
        "{e}"
    );
    let left: Vec<_> = std::fs::read_dir(&data).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    let e = err(&[
        "datasets",
        "fetch",
        "20news",
        "--data-dir",
        d,
        "--url",
        &format!("{url}/elsewhere.tar.gz"),
    ]);
    assert!(e.contains("downloading") && e.contains("failed"), "{e}");
    assert_eq!(std::fs::read_dir(&data).unwrap().count(), 0);
}

/// A manifest that lists the snapshot's files (bible-zh) downloads each from a mirror given
/// with `--url`, converts them together and checks before it writes; a file the mirror lacks
/// is the download's error. Nothing is left in the data directory.
#[test]
fn fetch_downloads_a_listed_snapshot_file_by_file() {
    let translation = |text: &str| format!("### Genesis\n[1:1] {text}\n").into_bytes();
    let url = serve(
        vec![
            ("/mirror/ChiUn.txt", translation("起初，　神 創造 天 地。")),
            ("/mirror/ChiSB.txt", translation("起初 天主 創造了 天地。")),
            ("/mirror/ChiUnL.txt", translation("元始、上帝創造天地、")),
            ("/mirror/LICENSE", b"MIT License".to_vec()),
        ],
        5,
    );
    let data = tmp("fetch-files");
    let _ = std::fs::remove_dir_all(&data);
    let d = data.to_str().unwrap();
    let mirror = format!("{url}/mirror/");
    let e = err(&[
        "datasets",
        "fetch",
        "bible-zh",
        "--data-dir",
        d,
        "--url",
        &mirror,
    ]);
    assert!(
        e.contains("the 3 documents built have content sha256")
            && e.contains("d0ddd902e5413bbc0173845c5ad05dce5f086f7d385e9e56980a7ae2d09a187a")
            && e.contains("nothing was written"),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(&data).unwrap().count(), 0);
    let e = err(&[
        "datasets",
        "fetch",
        "bible-zh",
        "--data-dir",
        d,
        "--url",
        &format!("{url}/elsewhere"),
    ]);
    assert!(e.contains("elsewhere/ChiUn.txt failed"), "{e}");
    assert!(!data.join("bible-zh.LICENSE.txt").exists());
    assert_eq!(std::fs::read_dir(&data).unwrap().count(), 0);
}

/// A file already there is never replaced; the published records recompressed (what a
/// fetch writes) verify as the dataset.
#[test]
fn fetch_leaves_a_file_there_and_rebuilt_files_verify() {
    let Some(dir) = shared_data("20news.jsonl.gz") else {
        return;
    };
    let data = tmp("fetch-rebuilt");
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data).unwrap();
    let mut records = Vec::new();
    let published = std::fs::File::open(dir.join("20news.jsonl.gz")).unwrap();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(published), &mut records).unwrap();
    let target = data.join("20news.jsonl.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut gz, &records).unwrap();
    std::fs::write(&target, gz.finish().unwrap()).unwrap();
    let d = data.to_str().unwrap();
    let out = ok(&["datasets", "verify", "--data-dir", d, "20news"]);
    assert!(out.contains("ok") && out.contains("rebuilt"), "{out}");
    let out = ok(&["datasets", "fetch", "20news", "--data-dir", d]);
    assert!(out.contains("verifies; nothing to do"), "{out}");
    // One byte of the records changed: neither the published file nor a rebuilt one.
    records[100] ^= 1;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut gz, &records).unwrap();
    let changed = gz.finish().unwrap();
    std::fs::write(&target, &changed).unwrap();
    let e = err(&["datasets", "fetch", "20news", "--data-dir", d]);
    assert!(e.contains("move it away"), "{e}");
    assert_eq!(
        std::fs::read(&target).unwrap(),
        changed,
        "the file there is untouched"
    );
    let e = err(&["datasets", "verify", "--data-dir", d, "20news"]);
    assert!(e.contains("wrong checksum"), "{e}");
}
