//! The span map: where each field of a model's RON text starts, by field path.
//!
//! Validation ([`super::validate`]) knows only the [`super::Model`] and reports errors by field
//! path (`bodies[3].material`, `fluid.method.cfl`, `time.dt`); when the model came from a file,
//! this map turns the path into the byte offset of the value in the text (and so into file,
//! line and column). Paths follow the serde structure as RON writes it:
//!
//! - a struct field is `parent.field` (the top level's fields have no parent: `time.dt`);
//! - a list item is `parent[i]` (0-based);
//! - a tuple element is `parent.i`;
//! - an enum variant adds nothing: `solver: Apgd(tolerance: 1e-3)` gives `solver` and
//!   `solver.tolerance`; `kind: Revolute(axis: (0, 0, 1))` gives `joints[0].kind.axis`;
//!   `velocity: Uniform((1, 0))` gives `...velocity` and `...velocity.0`.
//!
//! A path the text does not hold (a field left at its default) is located at its nearest
//! enclosing path that it does hold. The walker reads text that the RON parser has accepted;
//! on anything else it stops and keeps what it found (it never panics).

/// Byte offset of every value of a RON text by field path (module docs).
#[derive(Debug, Default, Clone)]
pub struct Spans {
    entries: std::collections::HashMap<String, usize>,
    /// Offset just past each value (where its text ends, before any white space).
    ends: std::collections::HashMap<String, usize>,
    /// Offset of the key of each struct field (`name` in `name: value`).
    keys: std::collections::HashMap<String, usize>,
}

impl Spans {
    /// The span map of `source`.
    pub fn of(source: &str) -> Spans {
        let mut w = Walker {
            src: source.as_bytes(),
            at: 0,
            out: Spans::default(),
            recording: true,
        };
        w.value("");
        w.out
    }

    /// Offset of the value at `path`, or of its nearest enclosing value the text holds; 0 when
    /// none.
    pub fn locate(&self, path: &str) -> usize {
        let mut p = path;
        loop {
            if let Some(&o) = self.entries.get(p) {
                return o;
            }
            match p.rfind(['.', '[']) {
                Some(cut) => p = &p[..cut],
                None => return self.entries.get("").copied().unwrap_or(0),
            }
        }
    }

    /// Offset of the key of the struct field at `path` (`name` in `name: value`), or of the
    /// nearest value the text holds ([`Spans::locate`]) when it has no key there.
    pub fn locate_key(&self, path: &str) -> usize {
        self.keys
            .get(path)
            .copied()
            .unwrap_or_else(|| self.locate(path))
    }

    /// Whether the text holds a value at exactly `path`.
    pub fn contains(&self, path: &str) -> bool {
        self.entries.contains_key(path)
    }

    /// The byte range of the value at exactly `path` (its whole text: `Apgd(tolerance: 1e-3)`,
    /// `[1, 2]`, `"name"`), if the text holds it and the walker read it to its end.
    pub fn range(&self, path: &str) -> Option<std::ops::Range<usize>> {
        Some(*self.entries.get(path)?..*self.ends.get(path)?)
    }

    /// How many items the list at `path` holds (`path[0]`, `path[1]`, ... in the text).
    pub fn items(&self, path: &str) -> usize {
        (0..)
            .take_while(|&i| self.entries.contains_key(&item(path, i)))
            .count()
    }
}

/// `parent.key`, or `key` at the top level.
pub fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// `parent[i]`.
pub fn item(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

/// The text's tokens without its comments and layout: `//` and nested `/* */` comments
/// dropped, each run of white space dropped too except for one space between two word
/// characters (`Some (x)` and `Some(x)` read the same), trailing commas dropped; strings
/// (`"..."`, `r#"..."#`) and characters kept as written. Two model texts with the same tokens
/// describe the same run, whatever their comments say (a study's finished case is not rerun
/// for a comment).
pub fn tokens(source: &str) -> String {
    let src = source.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c >= 0x80;
    let mut out: Vec<u8> = Vec::with_capacity(src.len());
    let mut w = Walker {
        src,
        at: 0,
        out: Spans::default(),
        recording: false,
    };
    loop {
        let before = w.at;
        w.skip();
        let Some(&c) = src.get(w.at) else { break };
        if w.at > before && out.last().is_some_and(|&l| word(l)) && word(c) {
            out.push(b' ');
        }
        let start = w.at;
        let hashes = src[w.at + 1..].iter().take_while(|&&b| b == b'#').count();
        let raw = c == b'r'
            && src.get(w.at + 1 + hashes) == Some(&b'"')
            && !out.last().is_some_and(|&l| word(l));
        if raw {
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let body = w.at + 2 + hashes;
            w.at = src[body..]
                .windows(close.len())
                .position(|x| x == close.as_slice())
                .map_or(src.len(), |k| body + k + close.len());
        } else if c == b'"' || (c == b'\'' && !out.last().is_some_and(|&l| word(l))) {
            w.quoted();
        } else {
            w.at += 1;
            if c == b',' {
                w.skip();
                if !matches!(src.get(w.at), Some(b')' | b']' | b'}') | None) {
                    out.push(b',');
                }
                continue;
            }
        }
        out.extend_from_slice(&src[start..w.at.min(src.len())]);
    }
    String::from_utf8_lossy(&out).into_owned()
}

struct Walker<'a> {
    src: &'a [u8],
    at: usize,
    out: Spans,
    /// Whether values are recorded (not while reading a map's key).
    recording: bool,
}

impl Walker<'_> {
    /// Skips white space and comments (`//` to the end of the line, nested `/* */`).
    fn skip(&mut self) {
        self.at = self.at.min(self.src.len());
        loop {
            while self.at < self.src.len() && self.src[self.at].is_ascii_whitespace() {
                self.at += 1;
            }
            if self.src[self.at..].starts_with(b"//") {
                while self.at < self.src.len() && self.src[self.at] != b'\n' {
                    self.at += 1;
                }
            } else if self.src[self.at..].starts_with(b"/*") {
                let mut depth = 0;
                while self.at < self.src.len() {
                    if self.src[self.at..].starts_with(b"/*") {
                        depth += 1;
                        self.at += 2;
                    } else if self.src[self.at..].starts_with(b"*/") {
                        depth -= 1;
                        self.at += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        self.at += 1;
                    }
                }
            } else {
                return;
            }
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip();
        self.src.get(self.at).copied()
    }

    fn is_ident_byte(c: u8) -> bool {
        c.is_ascii_alphanumeric() || c == b'_' || c == b'#'
    }

    /// An identifier at the cursor (consumed), if there is one.
    fn ident(&mut self) -> Option<String> {
        self.skip();
        let start = self.at;
        match self.src.get(self.at) {
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {}
            _ => return None,
        }
        while self.at < self.src.len() && Self::is_ident_byte(self.src[self.at]) {
            self.at += 1;
        }
        let name = String::from_utf8_lossy(&self.src[start..self.at]).into_owned();
        Some(name.strip_prefix("r#").map(str::to_string).unwrap_or(name))
    }

    /// Skips a string (`"..."` with escapes, or `r#"..."#`) or a character at the cursor.
    fn quoted(&mut self) {
        let q = self.src[self.at];
        self.at += 1;
        while self.at < self.src.len() {
            match self.src[self.at] {
                b'\\' => self.at += 2,
                c if c == q => {
                    self.at += 1;
                    return;
                }
                _ => self.at += 1,
            }
        }
    }

    /// A value at the cursor; records it under `path`. Returns false on text it cannot read.
    fn value(&mut self, path: &str) -> bool {
        let Some(c) = self.peek() else {
            return false;
        };
        if self.recording {
            self.out.entries.entry(path.to_string()).or_insert(self.at);
        }
        let ok = self.value_text(c, path);
        if ok && self.recording {
            self.out.ends.entry(path.to_string()).or_insert(self.at);
        }
        ok
    }

    /// The text of a value starting with `c` at the cursor.
    fn value_text(&mut self, c: u8, path: &str) -> bool {
        match c {
            b'(' => self.parens(path),
            b'[' => self.list(path),
            b'{' => self.map(path),
            b'"' | b'\'' => {
                self.quoted();
                true
            }
            b'r' if self.src[self.at..].starts_with(b"r\"")
                || self.src[self.at..].starts_with(b"r#\"") =>
            {
                let hashes = self.src[self.at + 1..]
                    .iter()
                    .take_while(|&&b| b == b'#')
                    .count();
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                self.at += 2 + hashes;
                while self.at < self.src.len() && !self.src[self.at..].starts_with(&close) {
                    self.at += 1;
                }
                self.at = (self.at + close.len()).min(self.src.len());
                true
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                self.ident();
                if self.peek() == Some(b'(') {
                    // An enum variant or a named struct: the name adds nothing to the path.
                    self.parens(path)
                } else {
                    true
                }
            }
            _ => {
                // A number (or anything else up to the next delimiter); text that is not a value
                // at all (a stray `:`) stops the walk.
                let start = self.at;
                while self.at < self.src.len()
                    && !matches!(self.src[self.at], b',' | b')' | b']' | b'}' | b':')
                    && !self.src[self.at].is_ascii_whitespace()
                {
                    self.at += 1;
                }
                self.at > start
            }
        }
    }

    /// `( ... )`: struct fields `name: value` if it starts with an identifier and a colon,
    /// else tuple elements.
    fn parens(&mut self, path: &str) -> bool {
        self.at += 1;
        let save = self.at;
        let is_struct = self.ident().is_some() && self.peek() == Some(b':');
        self.at = save;
        let mut k = 0;
        loop {
            match self.peek() {
                Some(b')') => {
                    self.at += 1;
                    return true;
                }
                None => return false,
                _ => {}
            }
            let ok = if is_struct {
                self.skip();
                let key_at = self.at;
                let Some(name) = self.ident() else {
                    return false;
                };
                self.out.keys.entry(join(path, &name)).or_insert(key_at);
                if self.peek() != Some(b':') {
                    return false;
                }
                self.at += 1;
                self.value(&join(path, &name))
            } else {
                let ok = self.value(&join(path, &k.to_string()));
                k += 1;
                ok
            };
            if !ok {
                return false;
            }
            if self.peek() == Some(b',') {
                self.at += 1;
            }
        }
    }

    /// `[ ... ]`: items `path[i]`.
    fn list(&mut self, path: &str) -> bool {
        self.at += 1;
        let mut i = 0;
        loop {
            match self.peek() {
                Some(b']') => {
                    self.at += 1;
                    return true;
                }
                None => return false,
                _ => {}
            }
            if !self.value(&item(path, i)) {
                return false;
            }
            i += 1;
            if self.peek() == Some(b',') {
                self.at += 1;
            }
        }
    }

    /// `{ key: value, ... }`: a string or identifier key gives `path.key`.
    fn map(&mut self, path: &str) -> bool {
        self.at += 1;
        loop {
            match self.peek() {
                Some(b'}') => {
                    self.at += 1;
                    return true;
                }
                None => return false,
                _ => {}
            }
            let start = self.at;
            self.recording = false;
            let key_read = self.value(path);
            self.recording = true;
            if !key_read {
                return false;
            }
            let key = String::from_utf8_lossy(&self.src[start..self.at])
                .trim_matches('"')
                .to_string();
            if self.peek() != Some(b':') {
                return false;
            }
            self.at += 1;
            if !self.value(&join(path, &key)) {
                return false;
            }
            if self.peek() == Some(b',') {
                self.at += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"// a model
Model(
    time: (dt: 0.001, end: 2.0), /* a comment ( with [ brackets */
    solver: Apgd(tolerance: 1e-3),
    bodies: [
        (name: "a \"quoted\" (name)", shape: Ball(radius: 0.1)),
        (name: "b", kind: Static, shape: Cuboid(half_extents: (1, 2)), position: (0, -1)),
    ],
    joints: [(name: "j", kind: Revolute(axis: (0, 0, 1)), body1: "a", body2: "b", anchor: (0, 0))],
    fluid: (spacing: 0.02, regions: [Box(min: (0, 0), max: (1, 1), velocity: Uniform((1, 0)))]),
    no_contact: [("x", "y")],
)"#;

    fn at(path: &str) -> &'static str {
        let o = Spans::of(TEXT).locate(path);
        let rest = &TEXT[o..];
        &rest[..rest.find(['\n', ',']).unwrap_or(rest.len())]
    }

    #[test]
    fn fields_items_variants_and_tuples_have_their_paths() {
        assert_eq!(at("time.dt"), "0.001");
        assert_eq!(at("time.end"), "2.0)");
        assert_eq!(at("solver.tolerance"), "1e-3)");
        assert!(at("solver").starts_with("Apgd("));
        assert_eq!(at("bodies[1].kind"), "Static");
        assert_eq!(at("bodies[1].position.1"), "-1))");
        assert_eq!(at("bodies[0].shape.radius"), "0.1))");
        assert_eq!(at("bodies[1].shape.half_extents.1"), "2))");
        assert_eq!(at("joints[0].kind.axis.2"), "1))");
        assert_eq!(at("fluid.regions[0].velocity.0.0"), "1");
        assert_eq!(at("no_contact[0].1"), "\"y\")]");
        assert!(at("bodies[0].name").starts_with("\"a \\\"quoted\\\" (name)\""));
    }

    #[test]
    fn a_missing_path_falls_back_to_its_nearest_holder() {
        let s = Spans::of(TEXT);
        assert_eq!(at("bodies[0].material"), at("bodies[0]"));
        assert!(at("bodies[0]").starts_with("(name: \"a"));
        assert_eq!(at("fluid.method.cfl"), at("fluid"));
        assert!(at("contact.resolver").starts_with("Model("));
        assert!(!Spans::of(TEXT).contains("bodies[2]"));
        let r = s.range("solver").unwrap();
        assert_eq!(&TEXT[r], "Apgd(tolerance: 1e-3)");
        let r = s.range("bodies[1].shape").unwrap();
        assert_eq!(&TEXT[r], "Cuboid(half_extents: (1, 2))");
        assert_eq!(&TEXT[s.range("time.dt").unwrap()], "0.001");
        assert_eq!(
            &TEXT[s.range("bodies[0].name").unwrap()],
            r#""a \"quoted\" (name)""#
        );
        assert_eq!(s.items("bodies"), 2);
        assert_eq!(s.items("joints"), 1);
        assert_eq!(s.items("materials"), 0);
        assert!(s.range("contact").is_none());
        // A map's keys are not values of their own.
        let map = Spans::of(r#"(m: {"a": 1, "b": (x: 2)})"#);
        assert!(map.contains("m.a") && map.contains("m.b.x"));
        // "", "m", "m.a", "m.b", "m.b.x": nothing for the keys themselves.
        assert_eq!(map.entries.len(), 5);
        assert!(TEXT[s.locate_key("fluid.spacing")..].starts_with("spacing: 0.02"));
        assert_eq!(s.locate_key("bodies[0]"), s.locate("bodies[0]"));
    }

    #[test]
    fn broken_text_does_not_panic() {
        for text in [
            "",
            "Model(",
            "Model(time: (dt: ",
            "(\"unterminated",
            "[1, 2",
            "/* open",
            "Study(axes: [\n axes: [1]])",
            "[a: 1]",
            "(x: [::])",
        ] {
            let _ = Spans::of(text).locate("time.dt");
        }
    }

    #[test]
    fn tokens_drop_comments_and_layout_but_not_strings_or_values() {
        let a = "// a header\nModel(\n  time: (dt: 0.001, /* 1 ms */ end: 2.0),\n  name: \"a  // b\",\n)";
        let b = "Model(time:(dt:0.001,end:2.0),name:\"a  // b\")";
        assert_eq!(tokens(a), b);
        assert_eq!(tokens(b), b);
        assert_ne!(tokens(a), tokens(&a.replace("0.001", "0.002")));
        assert_ne!(tokens(a), tokens(&a.replace("a  // b", "a // b")));
        assert_eq!(tokens("Some (x)"), tokens("Some(x)"));
        assert_ne!(tokens("a b"), tokens("ab"));
        assert_eq!(tokens("(s: r#\"x // \"y\"#)"), "(s:r#\"x // \"y\"#)");
        assert_eq!(tokens("'/' // c"), "'/'");
        for t in ["\"open", "r#\"open", "/* open", "'", "r", "\\"] {
            let _ = tokens(t);
        }
        for k in (0..=TEXT.len()).filter(|&k| TEXT.is_char_boundary(k)) {
            let _ = tokens(&TEXT[..k]);
        }
        assert!(
            !tokens(TEXT).contains("comment")
                && tokens(TEXT).contains("\"a \\\"quoted\\\" (name)\"")
        );
    }
}
