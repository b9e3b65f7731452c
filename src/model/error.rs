//! Model errors that name the file, line, column and field, and say what was expected.

use miette::{Diagnostic, NamedSource, SourceSpan};
use std::path::Path;

/// An error in a model file.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{file}:{line}:{column}: {field_text}{message}")]
pub struct ModelError {
    /// The file name as given.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The field the error is about, when known.
    pub field: Option<String>,
    field_text: String,
    /// What is wrong and what was expected.
    pub message: String,
    #[source_code]
    src: NamedSource<String>,
    #[label("here")]
    span: SourceSpan,
}

impl ModelError {
    /// An error at a 1-based line and column of `source`; the field is found from the text
    /// before the position when not given.
    pub fn at(
        path: &Path,
        source: &str,
        line: usize,
        column: usize,
        field: Option<String>,
        message: String,
    ) -> Self {
        let offset = offset_of(source, line, column);
        let field = field.or_else(|| field_before(source, offset));
        let len = token_len(source, offset);
        ModelError {
            file: path.display().to_string(),
            line,
            column,
            field_text: field
                .as_ref()
                .map(|f| format!("field `{f}`: "))
                .unwrap_or_default(),
            field,
            message,
            src: NamedSource::new(path.display().to_string(), source.to_string()),
            span: SourceSpan::new(offset.into(), len),
        }
    }

    /// An error at a byte offset of `source`.
    pub fn at_offset(
        path: &Path,
        source: &str,
        offset: usize,
        field: Option<String>,
        message: String,
    ) -> Self {
        let (line, column) = line_col(source, offset);
        Self::at(path, source, line, column, field, message)
    }

    /// An error about the file as a whole (line 1, column 1).
    pub fn whole(path: &Path, source: &str, message: String) -> Self {
        Self::at(path, source, 1, 1, None, message)
    }
}

/// An error in a model by field path (`bodies[3].material`, `fluid.method.cfl`): what
/// validation and building report, with or without a source text. [`FieldError::locate`] turns
/// it into a [`ModelError`] at the file, line and column of the value when there is one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("field `{path}`: {message}")]
pub struct FieldError {
    /// Where in the model ([`super::spans`] for the syntax); empty for the model as a whole.
    pub path: String,
    /// The field named in the message: the path's last field name unless given.
    pub field: String,
    /// What is wrong and what was expected.
    pub message: String,
    /// Whether a file's location is the field's key (`name` in `name: value`) rather than its
    /// value: for an error about the field as a whole.
    pub at_key: bool,
}

impl FieldError {
    /// An error at `path`, naming the path's last field.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Box<FieldError> {
        let path = path.into();
        Box::new(FieldError {
            field: last_field(&path).to_string(),
            path,
            message: message.into(),
            at_key: false,
        })
    }

    /// An error at `path` that names `field` (e.g. a probe's error names `probes`).
    pub fn named(
        path: impl Into<String>,
        field: &str,
        message: impl Into<String>,
    ) -> Box<FieldError> {
        let mut e = FieldError::new(path, message);
        e.field = field.to_string();
        e
    }

    /// The same error, located at the field's key rather than its value.
    pub fn at_key(mut self: Box<Self>) -> Box<FieldError> {
        self.at_key = true;
        self
    }

    /// The error at the value (or key) of its path in `source` (read from `file`).
    pub fn locate(&self, file: &Path, source: &str) -> ModelError {
        let spans = super::spans::Spans::of(source);
        let offset = if self.at_key {
            spans.locate_key(&self.path)
        } else {
            spans.locate(&self.path)
        };
        let field = (!self.field.is_empty()).then(|| self.field.clone());
        ModelError::at_offset(file, source, offset, field, self.message.clone())
    }
}

/// The last field name of a path: `bodies[3].shape.radius` → `radius`, `probes[2]` →
/// `probes`, `joints[0].kind.axis.2` → `axis`.
pub fn last_field(path: &str) -> &str {
    path.split(['.', '['])
        .rev()
        .find(|s| {
            s.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .unwrap_or("")
}

/// Byte offset of a 1-based line and column (columns count characters).
pub fn offset_of(source: &str, line: usize, column: usize) -> usize {
    let mut off = 0;
    for (i, l) in source.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let col_off: usize = l
                .chars()
                .take(column.saturating_sub(1))
                .map(char::len_utf8)
                .sum();
            return (off + col_off).min(source.len());
        }
        off += l.len();
    }
    source.len()
}

/// 1-based line and column of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    (line, col)
}

fn token_len(source: &str, offset: usize) -> usize {
    source[offset.min(source.len())..]
        .chars()
        .take_while(|c| !matches!(c, ',' | ')' | ']' | '\n'))
        .map(char::len_utf8)
        .sum::<usize>()
        .max(1)
}

/// The name of the field whose value starts at (or contains) `offset`: the identifier before the
/// nearest `:` preceding it on the way back, skipping nested brackets.
pub fn field_before(source: &str, offset: usize) -> Option<String> {
    let bytes = source.as_bytes();
    let mut i = offset.min(bytes.len());
    let mut depth = 0i32;
    while i > 0 {
        i -= 1;
        match bytes[i] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' => {
                if depth == 0 {
                    // Inside a list or tuple value: keep looking for the field that holds it.
                    continue;
                }
                depth -= 1;
            }
            b':' if depth == 0 && !in_line_comment(source, i) => {
                let end = i;
                let mut s = end;
                while s > 0 && (bytes[s - 1].is_ascii_whitespace()) {
                    s -= 1;
                }
                let stop = s;
                while s > 0 && (bytes[s - 1].is_ascii_alphanumeric() || bytes[s - 1] == b'_') {
                    s -= 1;
                }
                if s < stop {
                    return Some(source[s..stop].to_string());
                }
                return None;
            }
            b',' if depth == 0 => {}
            _ => {}
        }
    }
    None
}

/// Whether byte `i` lies inside a `//` comment of its line.
fn in_line_comment(source: &str, i: usize) -> bool {
    let line_start = source[..i].rfind('\n').map(|p| p + 1).unwrap_or(0);
    source[line_start..i].contains("//")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_is_found_before_a_value_and_not_in_comments() {
        let src = "// note: x\nModel(time: (dt: -1, end: 2), v: (1, -2, 3))";
        let at = |needle: &str| src.find(needle).unwrap();
        assert_eq!(field_before(src, at("-1")).as_deref(), Some("dt"));
        assert_eq!(field_before(src, at("-2")).as_deref(), Some("v"));
        assert_eq!(field_before(src, 5), None);
    }

    #[test]
    fn line_and_column_round_trip() {
        let src = "ab\ncdé\nf";
        for (line, col) in [(1, 1), (2, 3), (3, 1)] {
            assert_eq!(line_col(src, offset_of(src, line, col)), (line, col));
        }
    }
}
