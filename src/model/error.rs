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

/// Locates an error found while building the world from a valid model (`build_world`'s
/// messages): a message about ``body `NAME` `` points at that body's name, one about the fluid
/// or the walls at the `fluid` field, anything else at the whole file.
pub fn build_error(path: &Path, source: &str, message: &str) -> ModelError {
    let body = message
        .strip_prefix("body `")
        .and_then(|r| r.split_once('`'))
        .map(|(name, _)| name.to_string());
    let key_offset = |key: &str| {
        let mut at = 0;
        while let Some(o) = source[at..].find(key) {
            let pos = at + o;
            let after = source[pos + key.len()..].trim_start();
            let before_ok = pos == 0
                || !source[..pos]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_');
            if after.starts_with(':') && before_ok && !in_comment(source, pos) {
                return Some(pos);
            }
            at = pos + key.len();
        }
        None
    };
    if let Some(name) = body {
        let quoted = format!("\"{name}\"");
        if let Some(o) = key_offset("bodies").and_then(|b| source[b..].find(&quoted).map(|o| b + o))
        {
            return ModelError::at_offset(path, source, o, Some("bodies".into()), message.into());
        }
    }
    let key = if message.contains("fluid")
        || message.contains("walls")
        || message.contains("boundary particles")
    {
        "fluid"
    } else {
        "bodies"
    };
    match key_offset(key) {
        Some(o) => ModelError::at_offset(path, source, o, Some(key.into()), message.into()),
        None => ModelError::whole(path, source, message.into()),
    }
}

/// Whether byte `pos` lies in a `//` comment.
pub(super) fn in_comment(source: &str, pos: usize) -> bool {
    let line_start = source[..pos].rfind('\n').map(|i| i + 1).unwrap_or(0);
    source[line_start..pos].contains("//")
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
