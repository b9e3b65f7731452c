//! Changing one field of a model's RON text by path, keeping everything else as written: the
//! value's text is replaced, or (for a field the text leaves at its default) the field is added
//! to its nearest enclosing struct. The case files a study writes are therefore the user's
//! model with the study's changes, comments and all.
//!
//! Paths are those of [`crate::model::spans`] (`time.dt`, `fluid.method.cfl`,
//! `bodies[1].density`), and list items may also be chosen by name (`bodies[ball]`: the item
//! whose `name` is `"ball"`) or all at once (`materials[*].restitution`).

use crate::model::spans::{item, join, Spans};
use std::ops::Range;

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
enum Seg {
    /// A struct field or tuple element.
    Field(String),
    /// A list item by index.
    Index(usize),
    /// The list item whose `name` is this.
    Name(String),
    /// Every item of the list.
    All,
}

/// The steps of `path`, or what is wrong with its syntax.
fn segments(path: &str) -> Result<Vec<Seg>, String> {
    let mut out = Vec::new();
    let mut rest = path.trim();
    if rest.is_empty() {
        return Err("the field path is empty".into());
    }
    let mut first = true;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let close = r
                .find(']')
                .ok_or_else(|| format!("`[` without `]` in the field path `{path}`"))?;
            let sel = r[..close].trim();
            out.push(match sel {
                "*" => Seg::All,
                s if s.chars().all(|c| c.is_ascii_digit()) && !s.is_empty() => {
                    Seg::Index(s.parse().map_err(|_| format!("index `{s}` is too large"))?)
                }
                s if !s.is_empty() => Seg::Name(s.trim_matches('"').to_string()),
                _ => return Err(format!("empty `[]` in the field path `{path}`")),
            });
            rest = &r[close + 1..];
        } else {
            let r = if first {
                rest
            } else {
                rest.strip_prefix('.').ok_or_else(|| {
                    format!("expected `.` or `[` in the field path `{path}` before `{rest}`")
                })?
            };
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let name = &r[..end];
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!(
                    "`{name}` is not a field name (in the path `{path}`)"
                ));
            }
            out.push(Seg::Field(name.to_string()));
            rest = &r[end..];
        }
        first = false;
    }
    Ok(out)
}

/// The concrete paths (`bodies[2].density`) `path` names in `text`.
pub fn resolve(text: &str, path: &str) -> Result<Vec<String>, String> {
    let spans = Spans::of(text);
    let mut paths = vec![String::new()];
    for seg in segments(path)? {
        let mut next = Vec::new();
        for p in &paths {
            let list = if p.is_empty() { "the model" } else { p };
            match &seg {
                Seg::Field(f) => next.push(join(p, f)),
                Seg::Index(i) => {
                    let n = spans.items(p);
                    if *i >= n {
                        return Err(format!(
                            "`{list}` has {n} item(s) in the model; index {i} is past its end"
                        ));
                    }
                    next.push(item(p, *i));
                }
                Seg::All => {
                    let n = spans.items(p);
                    if n == 0 {
                        return Err(format!("`{list}` has no items in the model"));
                    }
                    next.extend((0..n).map(|i| item(p, i)));
                }
                Seg::Name(name) => {
                    let names: Vec<String> = (0..spans.items(p))
                        .map(|i| {
                            spans
                                .range(&join(&item(p, i), "name"))
                                .map(|r| text[r].trim_matches('"').to_string())
                                .unwrap_or_default()
                        })
                        .collect();
                    let i = names.iter().position(|n| n == name).ok_or_else(|| {
                        format!(
                            "no item of `{list}` is named `{name}` (names: {})",
                            names.join(", ")
                        )
                    })?;
                    next.push(item(p, i));
                }
            }
        }
        paths = next;
    }
    Ok(paths)
}

/// `text` with the value at the concrete path `path` replaced by `value` (RON text), the byte
/// range the new text occupies (the value, with the field's key when it was added) and where
/// the value starts. A field the text does not hold is added to its nearest
/// enclosing struct, nesting `(field: ...)` for missing parents.
pub fn set_one(
    text: &str,
    path: &str,
    value: &str,
) -> Result<(String, Range<usize>, usize), String> {
    let spans = Spans::of(text);
    if let Some(r) = spans.range(path) {
        let mut out = String::with_capacity(text.len() + value.len());
        out.push_str(&text[..r.start]);
        out.push_str(value);
        out.push_str(&text[r.end..]);
        return Ok((out, r.start..r.start + value.len(), r.start));
    }
    // The deepest enclosing value the text holds; the rest must be field names.
    let mut holder = path;
    let mut missing: Vec<&str> = Vec::new();
    while !spans.contains(holder) || holder == path {
        let cut = holder.rfind(['.', '[']);
        let (parent, last) = match cut {
            Some(c) => (&holder[..c], &holder[c..]),
            None => ("", holder),
        };
        let last = last.trim_start_matches('.');
        if last.starts_with('[') || last.chars().all(|c| c.is_ascii_digit()) {
            return Err(format!(
                "`{holder}` is not in the model: only struct fields can be added"
            ));
        }
        missing.push(last);
        holder = parent;
        if holder.is_empty() {
            break;
        }
    }
    let r = spans
        .range(holder)
        .ok_or_else(|| "the model's text could not be read".to_string())?;
    let body = &text[r.clone()];
    let open = body
        .find('(')
        .filter(|&o| body[..o].chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .ok_or_else(|| {
            let what = if holder.is_empty() { "the model" } else { holder };
            format!("cannot add `{path}`: `{what}` is not a struct with fields in parentheses; set `{what}` as a whole")
        })?;
    let mut insert = String::new();
    for (k, name) in missing.iter().rev().enumerate() {
        insert.push_str(name);
        insert.push_str(": ");
        if k + 1 < missing.len() {
            insert.push('(');
        }
    }
    let value_start = insert.len();
    insert.push_str(value);
    insert.push_str(&")".repeat(missing.len() - 1));
    let empty = body[open + 1..].trim_start().starts_with(')');
    let at = r.start + open + 1;
    let new_len = insert.len();
    if !empty {
        insert.push_str(", ");
    }
    let mut out = String::with_capacity(text.len() + insert.len());
    out.push_str(&text[..at]);
    out.push_str(&insert);
    out.push_str(&text[at..]);
    Ok((out, at..at + new_len, at + value_start))
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: &str = "// a model\nModel(\n  time: (dt: 0.001, end: 1.0),\n  bodies: [\n    (name: \"ground\", kind: Static, shape: Ball(radius: 1)),\n    (name: \"ball\", shape: Ball(radius: 0.1), position: (0, 2)),\n  ],\n  fluid: (spacing: 0.02, method: Wcsph()),\n)";

    fn set(path: &str, value: &str) -> String {
        let mut t = M.to_string();
        for p in resolve(&t, path).unwrap() {
            t = set_one(&t, &p, value).unwrap().0;
        }
        t
    }

    #[test]
    fn replaces_and_adds_fields() {
        assert!(set("time.dt", "5e-4").contains("time: (dt: 5e-4, end: 1.0)"));
        assert!(set("bodies[ball].position", "(1, 1)").contains("position: (1, 1))"));
        assert!(set("bodies[1].density", "2").contains("(density: 2, name: \"ball\", shape"));
        assert!(set("fluid.method.cfl", "0.2").contains("method: Wcsph(cfl: 0.2)"));
        assert!(set("contact.resolver", "Eti()").contains("Model(contact: (resolver: Eti()), \n"));
        let all = set("bodies[*].material", "\"steel\"");
        assert_eq!(all.matches("material: \"steel\"").count(), 2);
        // The value's new range.
        let (t, r, v) = set_one(M, "time.end", "3").unwrap();
        assert_eq!((&t[r], &t[v..v + 1]), ("3", "3"));
        let (t, r, v) = set_one(M, "solver", "Pgs(sweeps: 5)").unwrap();
        assert_eq!(&t[r], "solver: Pgs(sweeps: 5)");
        assert!(t[v..].starts_with("Pgs(sweeps: 5), "));
    }

    #[test]
    fn bad_paths_say_why() {
        let e = resolve(M, "bodies[rock].density").unwrap_err();
        assert!(
            e.contains("no item of `bodies` is named `rock` (names: ground, ball)"),
            "{e}"
        );
        assert!(resolve(M, "bodies[5].density")
            .unwrap_err()
            .contains("2 item(s)"));
        assert!(resolve(M, "materials[*].friction")
            .unwrap_err()
            .contains("no items"));
        assert!(resolve(M, "time..dt").is_err());
        assert!(resolve(M, "").is_err());
        assert!(resolve(M, "bodies[").is_err());
        let e = set_one(M, "bodies[0].shape.radius.0.x", "1").unwrap_err();
        assert!(e.contains("only struct fields"), "{e}");
        let e = set_one(M, "bodies[0].kind.x", "1").unwrap_err();
        assert!(e.contains("set `bodies[0].kind` as a whole"), "{e}");
    }
}
