//! Messages that teach: the RON parser's errors said in the model's words. A wrong value of a
//! field that takes a name lists the valid names (`dimension` takes `Two` or `Three`); a
//! method written without its parentheses gets them suggested (`Wcsph()`); a field written in
//! the wrong section names the section it belongs to (`resolver` goes in `contact`); the
//! parser's type names (`Model`, `BodyDef`, ...) become what a user wrote.
//!
//! The tables below name what the schema accepts; a unit test parses every name they list, so
//! they cannot drift from the schema unnoticed.

/// Fields that take one of a few names, by (top-level section, field): the names as written.
/// A name with `(..)` takes parameters in parentheses.
pub const NAMED_VALUES: &[(&str, &str, &[&str])] = &[
    ("scene", "dimension", &["Two", "Three"]),
    ("bodies", "kind", &["Static", "Kinematic", "Dynamic"]),
    (
        "joints",
        "kind",
        &[
            "Fixed",
            "Spherical",
            "Revolute(axis: ..)",
            "Prismatic(axis: ..)",
        ],
    ),
    ("fluid", "method", &["Constraint()", "Wcsph()", "Isph()"]),
    (
        "contact",
        "resolver",
        &[
            "Complementarity()",
            "Eti()",
            "SequentialImpulse()",
            "SimultaneousImpulse()",
        ],
    ),
    ("solver", "solver", &["Pgs()", "Apgd()"]),
    ("beams", "hinges", &["Conservative", "Implicit"]),
    (
        "beams",
        "support",
        &[
            "Clamped",
            "Pinned",
            "ClampedTo(\"body\")",
            "PinnedTo(\"body\")",
            "Free",
        ],
    ),
];

/// Fields of one section that users write elsewhere, with the section they belong to, as
/// written in a model.
const SECTION_OF: &[(&str, &str)] = &[
    ("dimension", "scene: (dimension: ..)"),
    ("gravity", "scene: (gravity: ..)"),
    ("periodic", "scene: (periodic: ..)"),
    ("dt", "time: (dt: ..)"),
    ("end", "time: (end: ..)"),
    ("resolver", "contact: (resolver: ..)"),
    (
        "restitution_threshold",
        "contact: (restitution_threshold: ..)",
    ),
    ("baumgarte", "contact: (baumgarte: ..)"),
    ("spacing", "fluid: (spacing: ..)"),
    ("regions", "fluid: (regions: ..)"),
    ("method", "fluid: (method: ..)"),
    ("every", "output: (every: ..)"),
    ("vtk", "output: (vtk: ..)"),
    (
        "max_iterations",
        "solver: Pgs(max_iterations: ..) (or Apgd(..))",
    ),
    ("tolerance", "solver: Pgs(tolerance: ..) (or Apgd(..))"),
    ("max_substeps", "guard: (max_substeps: ..)"),
];

/// The parser's type names and where a user wrote them.
const TYPE_WORDS: &[(&str, &str)] = &[
    ("Model", "at the model's top level"),
    ("BodyDef", "in a body"),
    ("MaterialDef", "in a material"),
    ("JointDef", "in a joint"),
    ("BeamDef", "in a beam"),
    ("FluidDef", "in `fluid`"),
    ("Scene", "in `scene`"),
    ("Time", "in `time`"),
    ("Output", "in `output`"),
    ("ContactParams", "in `contact`"),
    ("Bounds", "in `guard`"),
    ("ArrayDef", "in an `array`"),
    ("Compliance", "in a joint's `compliance`"),
    ("Spring", "in a hinge's `spring`"),
];

/// The message for the parser's error `code` at byte `offset` of `source`, where the value of
/// field `field` (if known) starts.
pub fn message(code: &ron::Error, source: &str, offset: usize, field: Option<&str>) -> String {
    let section = top_level_key(source, offset);
    let got = match code {
        // The parser stops after a name that wanted parentheses: the name is the word before.
        ron::Error::ExpectedStructLike => word_before(source, offset),
        _ => token_at(source, offset),
    };
    if let Some(names) = field.and_then(|f| named_values(section.as_deref(), f)) {
        let f = field.unwrap_or_default();
        let bare = names
            .iter()
            .find(|n| n.split('(').next() == Some(got.as_str()));
        match (code, bare) {
            (ron::Error::ExpectedStructLike, Some(n)) if n.ends_with("()") => {
                return format!(
                    "`{got}` is written with parentheses: `{n}` (its parameters have defaults \
                     and may be left out)"
                );
            }
            (ron::Error::ExpectedStructLike, Some(n)) if n.contains('(') => {
                let example = n.replace("axis: ..", "axis: (0, 0, 1)");
                return format!("`{got}` takes parameters in parentheses, e.g. `{example}`");
            }
            (
                ron::Error::SuggestRawIdentifier(_)
                | ron::Error::InvalidIdentifier(_)
                | ron::Error::ExpectedIdentifier
                | ron::Error::ExpectedStructLike
                | ron::Error::NoSuchEnumVariant { .. },
                _,
            ) => return format!("`{f}` takes {}; got `{got}`", list(names)),
            _ => {}
        }
    }
    // A probe point written as a tuple inside the probe's parentheses: `Pressure((0.5, 0.1))`.
    if matches!(code, ron::Error::ExpectedFloat) && source[offset..].starts_with('(') {
        let before = source[..offset].trim_end();
        if let Some(probe) = ["Pressure(", "WaveGauge(", "Front("]
            .iter()
            .find(|p| before.ends_with(*p))
        {
            let name = probe.trim_end_matches('(');
            return format!(
                "`{name}` takes its coordinates without inner parentheses: `{name}(0.5, 0.1)` in \
                 2D, `{name}(0.5, 0.2, 0.1)` in 3D"
            );
        }
    }
    if let ron::Error::NoSuchStructField { found, outer, .. } = code {
        if let Some((_, home)) = SECTION_OF.iter().find(|(k, _)| k == found) {
            let here = outer.as_deref().map_or("here".to_string(), words);
            if !home.starts_with(section.as_deref().unwrap_or("\u{0}"))
                || outer.as_deref() == Some("Model")
            {
                return format!("`{found}` is not a field {here}; it belongs in `{home}`");
            }
        }
    }
    plain(&code.to_string())
}

/// `code`'s own message with the parser's type names replaced by what a user wrote and
/// `in enum X` dropped.
fn plain(text: &str) -> String {
    let mut out = text.to_string();
    for (ty, w) in TYPE_WORDS {
        out = out.replace(&format!(" in `{ty}`"), &format!(" {w}"));
    }
    if let Some(i) = out.find(" in enum `") {
        if let Some(j) = out[i + 10..].find('`') {
            out.replace_range(i..i + 10 + j + 1, "");
        }
    }
    out
}

/// What a user wrote for the parser's type name `ty`.
fn words(ty: &str) -> String {
    TYPE_WORDS
        .iter()
        .find(|(t, _)| *t == ty)
        .map_or(format!("in `{ty}`"), |(_, w)| w.to_string())
}

fn named_values(section: Option<&str>, field: &str) -> Option<&'static [&'static str]> {
    NAMED_VALUES
        .iter()
        .find(|(s, f, _)| *f == field && Some(*s) == section)
        .map(|(_, _, n)| *n)
}

/// `a` or `b`; one of `a`, `b` or `c`.
fn list(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.split_last() {
        Some((last, rest)) if rest.len() == 1 => format!("{} or {last}", rest[0]),
        Some((last, rest)) if !rest.is_empty() => {
            format!("one of {} or {last}", rest.join(", "))
        }
        _ => q.join(""),
    }
}

/// The identifier that ends at `offset` or before it, across white space.
fn word_before(source: &str, offset: usize) -> String {
    let before = source
        .get(..offset.min(source.len()))
        .unwrap_or("")
        .trim_end();
    let start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    before[start..].to_string()
}

/// The word (identifier, number or punctuation mark) that starts at `offset`.
fn token_at(source: &str, offset: usize) -> String {
    let rest = source.get(offset.min(source.len())..).unwrap_or("");
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '+'))
        .collect();
    if word.is_empty() {
        rest.chars().next().map(String::from).unwrap_or_default()
    } else {
        word
    }
}

/// The top-level field (`bodies`, `fluid`, ...) whose value holds `offset`: the last
/// `name:` written at the model's first nesting level before it (strings and `//` comments
/// skipped).
pub fn top_level_key(source: &str, offset: usize) -> Option<String> {
    let b = source.as_bytes();
    let end = offset.min(b.len());
    let (mut depth, mut i, mut key) = (0i32, 0usize, None);
    while i < end {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < end && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < end && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            c if depth == 1 && (c.is_ascii_alphabetic() || c == b'_') => {
                let s = i;
                while i < end && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let mut j = i;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if b.get(j) == Some(&b':') {
                    key = Some(source[s..i].to_string());
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name the tables list is accepted by the schema where the table says.
    #[test]
    fn every_listed_name_parses_in_its_field() {
        let fill = |n: &str| {
            n.replace("axis: ..", "axis: (0, 0, 1)")
                .replace("\"body\"", "\"a\"")
        };
        for (section, field, names) in NAMED_VALUES {
            for n in *names {
                let v = fill(n);
                let text = match (*section, *field) {
                    ("scene", _) => format!("Model(time: (dt: 0.1, end: 1), scene: (dimension: {v}, gravity: (0, -9.81)))"),
                    ("bodies", _) => format!("Model(time: (dt: 0.1, end: 1), bodies: [(name: \"a\", kind: {v}, shape: Ball(radius: 1))])"),
                    ("joints", _) => format!("Model(time: (dt: 0.1, end: 1), bodies: [(name: \"a\", shape: Ball(radius: 1)), (name: \"b\", shape: Ball(radius: 1), position: (3, 0, 0))], joints: [(name: \"j\", kind: {v}, body1: \"a\", body2: \"b\", anchor: (1, 0, 0))])"),
                    ("fluid", _) => format!("Model(time: (dt: 0.1, end: 1), fluid: (method: {v}, spacing: 0.1, regions: [Box(min: (0, 0, 0), max: (1, 1, 1))]))"),
                    ("contact", _) => format!("Model(time: (dt: 0.1, end: 1), contact: (resolver: {v}))"),
                    ("solver", _) => format!("Model(time: (dt: 0.1, end: 1), solver: {v})"),
                    ("beams", f) => format!("Model(time: (dt: 0.1, end: 1), bodies: [(name: \"a\", kind: Static, shape: Ball(radius: 1), position: (-2, 0, 0))], beams: [(name: \"b\", root: (0, 0, 0), length: 1, thickness: 0.1, width: 0.1, youngs_modulus: 1e6, elements: 2, {f}: {v})])"),
                    _ => panic!("no template for section `{section}`"),
                };
                crate::model::parse_str(std::path::Path::new("t.ron"), &text)
                    .unwrap_or_else(|e| panic!("`{n}` in {section}.{field}: {e}"));
            }
        }
    }

    #[test]
    fn the_top_level_key_skips_nesting_strings_and_comments() {
        let s = "Model(\n  // scene: (\n  bodies: [(name: \"x: y\", kind: 2)],\n)";
        let at = s.find("2)").unwrap();
        assert_eq!(top_level_key(s, at).as_deref(), Some("bodies"));
    }
}
