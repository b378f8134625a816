//! The protocol's only writer to stdout.
//!
//! Each reply line goes out in a single `write_all` of the complete line followed by a
//! flush: some managers (qpiskvork) split replies at whatever each pipe read returns, so
//! a line written piece by piece can be read as two broken replies.

use std::io::Write;

pub struct Output<W: Write> {
    out: W,
}

impl<W: Write> Output<W> {
    pub fn new(out: W) -> Output<W> {
        Output { out }
    }

    /// Writes one reply line. A broken pipe means the manager is gone; there is nobody
    /// left to tell, so write errors are ignored.
    pub fn line(&mut self, text: &str) {
        let mut buf = String::with_capacity(text.len() + 1);
        // A reply must stay one line of text whatever it quotes (a path from INFO
        // folder, a value from the config file): no line ends, NULs or other controls.
        buf.extend(text.chars().map(|c| if c.is_control() { ' ' } else { c }));
        buf.push('\n');
        let _ = self.out.write_all(buf.as_bytes());
        let _ = self.out.flush();
    }

    pub fn error(&mut self, text: &str) {
        self.line(&format!("ERROR {text}"));
    }

    pub fn message(&mut self, text: &str) {
        self.line(&format!("MESSAGE {text}"));
    }
}
