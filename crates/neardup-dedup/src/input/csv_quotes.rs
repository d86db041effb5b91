//! A strict check of CSV quoting, on the bytes as the `csv` crate reads them.
//!
//! The `csv` crate is lenient by design: a quote that is never closed makes the rest of the
//! file one field, and a quoted field that closes with text after it (`"a"b,`) is read as
//! `ab`. A record with a stray quote then swallowed the records after it without an error
//! (500 records read as 300 documents, or as 414 when a later quote closed the field).
//! [`QuoteAudit`] follows RFC 4180's grammar (§2, rules 5–7) over the same bytes and fails
//! the read at the first violation, naming the line where the field opened.

use std::io::{BufRead, Read};

/// Where the bytes are in the quoting grammar.
#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    /// At the start of a field.
    FieldStart,
    /// Inside a field that did not start with a quote (quotes there are text).
    Unquoted,
    /// Inside a quoted field.
    Quoted,
    /// Just after a quote inside a quoted field: a second quote is an escaped one; a
    /// delimiter or line end closes the field; anything else is a violation.
    QuoteInQuoted,
    /// After a closing quote and `\r`: only `\n` may follow.
    ClosedThenCr,
}

/// A violation of the quoting grammar.
#[derive(Debug)]
pub struct QuoteError {
    /// The line where it was found (1-based).
    pub line: u64,
    /// What is wrong, with the line where the field opened.
    pub message: String,
}

impl std::fmt::Display for QuoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for QuoteError {}

/// A reader that passes bytes through and fails at the first quoting violation.
#[derive(Debug)]
pub struct QuoteAudit<R> {
    inner: R,
    state: State,
    line: u64,
    opened_on: u64,
}

impl<R: BufRead> QuoteAudit<R> {
    pub fn new(inner: R) -> Self {
        QuoteAudit {
            inner,
            state: State::FieldStart,
            line: 1,
            opened_on: 0,
        }
    }

    /// Follows the grammar over `bytes`; the first violation.
    fn audit(&mut self, bytes: &[u8]) -> Result<(), QuoteError> {
        for &b in bytes {
            self.state = match (self.state, b) {
                (State::FieldStart, b'"') => {
                    self.opened_on = self.line;
                    State::Quoted
                }
                (State::FieldStart | State::Unquoted, b',' | b'\n') => State::FieldStart,
                (State::FieldStart | State::Unquoted, _) => State::Unquoted,
                (State::Quoted, b'"') => State::QuoteInQuoted,
                (State::Quoted, _) => State::Quoted,
                (State::QuoteInQuoted, b'"') => State::Quoted,
                (State::QuoteInQuoted, b',' | b'\n') => State::FieldStart,
                (State::QuoteInQuoted, b'\r') => State::ClosedThenCr,
                (State::ClosedThenCr, b'\n') => State::FieldStart,
                (State::QuoteInQuoted | State::ClosedThenCr, other) => {
                    return Err(self.violation(other));
                }
            };
            if b == b'\n' {
                self.line += 1;
            }
        }
        Ok(())
    }

    fn violation(&self, after: u8) -> QuoteError {
        let shown = match after {
            b' '..=b'~' => format!("`{}`", after as char),
            _ => format!("byte 0x{after:02x}"),
        };
        QuoteError {
            line: self.line,
            message: format!(
                "the quoted field opened on line {} closes on line {} and {shown} follows the \
                 closing quote (a quote inside a quoted field is written twice, \"\"; a stray \
                 quote here made the field swallow the records after it)",
                self.opened_on, self.line
            ),
        }
    }

    /// The violation of a file that ends here, if any.
    fn at_end(&self) -> Result<(), QuoteError> {
        match self.state {
            State::Quoted => Err(QuoteError {
                line: self.opened_on,
                message: format!(
                    "the quote that opens a field on line {} is never closed: the rest of the \
                     file would be read as one field",
                    self.opened_on
                ),
            }),
            _ => Ok(()),
        }
    }
}

impl<R: BufRead> Read for QuoteAudit<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let checked = match n {
            0 => self.at_end(),
            _ => self.audit(&buf[..n]),
        };
        checked.map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        Ok(n)
    }
}

/// The quoting violation inside a `csv` error, if that is what it is.
pub fn quote_error(e: &csv::Error) -> Option<&QuoteError> {
    match e.kind() {
        csv::ErrorKind::Io(io) => io.get_ref()?.downcast_ref::<QuoteError>(),
        _ => None,
    }
}

/// The error naming `path` and the line of the quoting violation inside `e`, if that is what
/// `e` is: what every CSV reader reports for one.
pub fn malformed(path: &std::path::Path, e: &csv::Error) -> Option<crate::error::Error> {
    let q = quote_error(e)?;
    Some(crate::error::Error::line(
        path,
        q.line as usize,
        format!("malformed CSV: {q}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `csv` through the audit; the records' first fields, or the error's line.
    fn read(csv: &str) -> Result<Vec<String>, u64> {
        let audit = QuoteAudit::new(std::io::BufReader::with_capacity(7, csv.as_bytes()));
        let mut reader = csv::ReaderBuilder::new().from_reader(audit);
        let mut out = Vec::new();
        for r in reader.records() {
            match r {
                Ok(r) => out.push(r[0].to_string()),
                Err(e) => return Err(quote_error(&e).expect("a quoting error").line),
            }
        }
        Ok(out)
    }

    #[test]
    fn well_quoted_fields_pass_and_stray_quotes_fail_on_their_line() {
        let good =
            "id,text\n\"a\",\"one \"\"two\"\"\nthree\"\r\nb,plain \"quote\" inside\n\"c\",\n";
        assert_eq!(read(good).unwrap(), ["a", "b", "c"]);
        // Never closed: the csv crate alone reads "x" and then one field to the end.
        let open = "id,text\nx,\"stray\ny,two\nz,three\n";
        assert!(csv::Reader::from_reader(open.as_bytes()).records().count() == 1);
        assert_eq!(read(open), Err(2));
        // Closed by a later quote, with text after it.
        let later = "id,text\nx,\"stray\ny,he said \"hi\" there\nz,three\n";
        assert_eq!(read(later), Err(3));
        assert_eq!(read("id,text\nx,\"a\"\rb\n"), Err(2));
    }
}
