//! A study file read, its axes expanded into cases, and every case checked: the first stage
//! of a study. Each case is the base model's text with the study's changes spliced in
//! ([`super::splice`]), parsed and validated like any model file.
//!
//! Errors are located in the study file: a field path that names nothing, or a value the field
//! cannot take, is reported at the path's or the value's line and column, naming the axis and
//! the level. A combination of levels that is invalid only together is kept as a failed case
//! (its reason names the case and the field), so the other cases still run.

use super::schema::{AxisDef, Combine, StudyDef};
use super::splice;
use crate::model::error::{offset_of, ModelError};
use crate::model::spans::Spans;
use crate::registry::Registry;
use ron::extensions::Extensions;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// One change a level makes: a field path and a value, with where both are in the study file.
#[derive(Debug, Clone)]
pub struct Change {
    /// The field path as written.
    pub field: String,
    /// The value's RON text.
    pub value: String,
    /// Offset of the path in the study file.
    pub field_at: usize,
    /// Offset of the value in the study file.
    pub value_at: usize,
}

/// A level of an axis.
#[derive(Debug, Clone)]
pub struct Level {
    /// Short label.
    pub label: String,
    /// Its number on plots (the value itself for a numeric field axis).
    pub value: Option<f64>,
    /// The changes it makes.
    pub changes: Vec<Change>,
}

/// An axis: a name and its levels.
#[derive(Debug, Clone)]
pub struct Axis {
    /// The name (a column of the table).
    pub name: String,
    /// The levels.
    pub levels: Vec<Level>,
}

/// One case: a level of each axis, and the model text that results.
#[derive(Debug, Clone)]
pub struct Case {
    /// Position in the study's order.
    pub index: usize,
    /// The levels' labels joined by `/` (unique in the study).
    pub label: String,
    /// The folder name of the case (the label with `/` and other awkward characters as `_`).
    pub dir: String,
    /// Level index per axis.
    pub levels: Vec<usize>,
    /// The case's model text.
    pub text: String,
    /// Why the case is invalid, when it is (it then fails without running).
    pub error: Option<String>,
}

/// A study read from its file, with its cases.
#[derive(Debug)]
pub struct Study {
    /// The study file.
    pub path: PathBuf,
    /// Its text.
    pub source: String,
    /// What it says.
    pub def: StudyDef,
    /// The base model file.
    pub model_path: PathBuf,
    /// The axes.
    pub axes: Vec<Axis>,
    /// The cases, in order.
    pub cases: Vec<Case>,
    /// The methods its models may name beyond the built-in ones ([`crate::registry`]); every
    /// case is read and built with it.
    pub registry: Registry,
}

/// A file named relative to the study file `study` (references' data, the base model).
pub(crate) fn relative_to(study: &Path, file: &str) -> PathBuf {
    study.parent().unwrap_or(Path::new(".")).join(file)
}

/// Whether `source` is a study file (its first value is `Study(`).
pub fn is_study(source: &str) -> bool {
    let spans = Spans::of(source);
    let at = spans.locate("");
    source[at.min(source.len())..]
        .trim_start()
        .starts_with("Study")
}

fn err(study: &Path, source: &str, at: usize, field: &str, message: String) -> Box<ModelError> {
    Box::new(ModelError::at_offset(
        study,
        source,
        at,
        Some(field.to_string()),
        message,
    ))
}

/// Reads a study file and expands its cases (module docs).
pub fn load_study(path: &Path) -> Result<Study, Box<ModelError>> {
    load_study_with(path, &Registry::new())
}

/// [`load_study`] for a study whose models may name the methods of `registry`.
pub fn load_study_with(path: &Path, registry: &Registry) -> Result<Study, Box<ModelError>> {
    let source = std::fs::read_to_string(path).map_err(|e| {
        Box::new(ModelError::whole(
            path,
            "",
            format!("cannot read the study file: {e}"),
        ))
    })?;
    let source = source
        .strip_prefix('\u{feff}')
        .unwrap_or(&source)
        .to_string();
    let def: StudyDef = ron::Options::default()
        .with_default_extension(Extensions::IMPLICIT_SOME | Extensions::UNWRAP_VARIANT_NEWTYPES)
        .from_str(&source)
        .map_err(|e| {
            let p = e.span.start;
            Box::new(ModelError::at(
                path,
                &source,
                p.line,
                p.col,
                None,
                e.code.to_string(),
            ))
        })?;
    let spans = Spans::of(&source);
    let model_path = relative_to(path, &def.model);
    let model_text = std::fs::read_to_string(&model_path).map_err(|e| {
        err(
            path,
            &source,
            spans.locate("model"),
            "model",
            format!("cannot read the base model {}: {e}", model_path.display()),
        )
    })?;
    let model_text = model_text
        .strip_prefix('\u{feff}')
        .unwrap_or(&model_text)
        .to_string();
    crate::model::load::parse_str_with(&model_path, &model_text, registry)
        .map_err(|e| Box::new(*e))?;
    let base_changes = changes(&spans, "set", &def.set);
    let model = (model_path.as_path(), registry);
    let base = apply_checked(path, &source, model, &model_text, &base_changes, "set")?;
    let axes = axes(path, &source, &spans, &def)?;
    for axis in &axes {
        for level in &axis.levels {
            let what = format!("level `{}` of axis `{}`", level.label, axis.name);
            apply_checked(path, &source, model, &base, &level.changes, &what)?;
        }
    }
    let cases = cases(path, &source, &spans, &def, &axes, model, &base)?;
    Ok(Study {
        path: path.to_path_buf(),
        source,
        def,
        model_path,
        axes,
        cases,
        registry: registry.clone(),
    })
}

/// The changes of a `set` list at `at` (`set` or `axes[i].levels[j].set`).
fn changes(spans: &Spans, at: &str, set: &[(String, Box<ron::value::RawValue>)]) -> Vec<Change> {
    set.iter()
        .enumerate()
        .map(|(k, (field, value))| Change {
            field: field.clone(),
            value: value.get_ron().trim().to_string(),
            field_at: spans.locate(&format!("{at}[{k}].0")),
            value_at: spans.locate(&format!("{at}[{k}].1")),
        })
        .collect()
}

/// The default label of a value: its text without white space, a trailing `()` or quotes.
fn compact(value: &str) -> String {
    let v: String = value.split_whitespace().collect::<Vec<_>>().join(" ");
    let v = v.strip_suffix("()").unwrap_or(&v);
    v.trim_matches('"').to_string()
}

fn axes(
    path: &Path,
    source: &str,
    spans: &Spans,
    def: &StudyDef,
) -> Result<Vec<Axis>, Box<ModelError>> {
    let mut out: Vec<Axis> = Vec::new();
    for (a, axis) in def.axes.iter().enumerate() {
        let at = format!("axes[{a}]");
        let (name, levels) = match axis {
            AxisDef::Field {
                name,
                field,
                values,
                labels,
            } => {
                if !labels.is_empty() && labels.len() != values.len() {
                    return Err(err(
                        path,
                        source,
                        spans.locate(&format!("{at}.labels")),
                        "labels",
                        format!(
                            "{} labels for {} values; give one label per value or none",
                            labels.len(),
                            values.len()
                        ),
                    ));
                }
                let levels = values
                    .iter()
                    .enumerate()
                    .map(|(j, v)| {
                        let text = v.get_ron().trim().to_string();
                        Level {
                            label: labels.get(j).cloned().unwrap_or_else(|| compact(&text)),
                            value: text
                                .parse::<f64>()
                                .ok()
                                .or_else(|| super::expr::eval(&text).ok()),
                            changes: vec![Change {
                                field: field.clone(),
                                value: text,
                                field_at: spans.locate(&format!("{at}.field")),
                                value_at: spans.locate(&format!("{at}.values[{j}]")),
                            }],
                        }
                    })
                    .collect::<Vec<_>>();
                (name, levels)
            }
            AxisDef::Cases { name, levels } => {
                let levels = levels
                    .iter()
                    .enumerate()
                    .map(|(j, l)| Level {
                        label: l.label.clone(),
                        value: l.value,
                        changes: changes(spans, &format!("{at}.levels[{j}].set"), &l.set),
                    })
                    .collect();
                (name, levels)
            }
        };
        if levels.is_empty() {
            return Err(err(
                path,
                source,
                spans.locate(&at),
                "axes",
                format!("axis `{name}` has no levels; give it at least one value"),
            ));
        }
        if out.iter().any(|x| &x.name == name) || name.trim().is_empty() {
            return Err(err(
                path,
                source,
                spans.locate(&format!("{at}.name")),
                "name",
                format!("axis name `{name}` is empty or used twice; each axis needs its own name"),
            ));
        }
        out.push(Axis {
            name: name.clone(),
            levels,
        });
    }
    Ok(out)
}

/// Applies `changes` to `text` and checks the result; an error is located at the change that
/// caused it, in the study file.
fn apply_checked(
    study: &Path,
    source: &str,
    (model_path, registry): (&Path, &Registry),
    text: &str,
    changes: &[Change],
    what: &str,
) -> Result<String, Box<ModelError>> {
    let (out, ranges) = apply(text, changes).map_err(|(k, m)| {
        err(
            study,
            source,
            changes[k].field_at,
            &changes[k].field,
            format!("{what}: {m}"),
        )
    })?;
    if let Err(e) = crate::model::load::parse_str_with(model_path, &out, registry) {
        let o = offset_of(&out, e.line, e.column);
        let hit = ranges
            .iter()
            .rev()
            .find(|(_, r, _)| r.contains(&o) || r.end == o);
        let k = hit.map(|h| h.0);
        let unknown = e.message.starts_with("Unexpected field");
        let (k, inside) = match k {
            Some(k) => (k, true),
            None => (changes.len().saturating_sub(1), false),
        };
        let Some(c) = changes.get(k) else {
            return Err(e);
        };
        let field = e.field.clone().unwrap_or_default();
        let (path, message) = if inside {
            (c.field.as_str(), format!("{what}: {}", e.message))
        } else {
            (
                field.as_str(),
                format!(
                    "{what}: with `{}` set to `{}`, the model's field `{field}` is invalid: {}",
                    c.field, c.value, e.message
                ),
            )
        };
        // Within the value's text, the same character of the study file's value.
        let within = hit
            .map(|h| o.saturating_sub(h.2))
            .filter(|&d| hit.is_some_and(|h| o >= h.2) && d < c.value.len());
        let at = if unknown {
            c.field_at
        } else {
            c.value_at + within.unwrap_or(0)
        };
        return Err(err(study, source, at, path, message));
    }
    Ok(out)
}

/// `text` with `changes` applied in order, and the range of each change's text in the result
/// (by change index); or the index of the change whose path fails and why.
/// The text after some changes and, per change, the range of its text in it and where its
/// value starts.
type Applied = (String, Vec<(usize, Range<usize>, usize)>);

fn apply(text: &str, changes: &[Change]) -> Result<Applied, (usize, String)> {
    let mut t = text.to_string();
    let mut ranges: Vec<(usize, Range<usize>, usize)> = Vec::new();
    for (k, c) in changes.iter().enumerate() {
        for p in splice::resolve(&t, &c.field).map_err(|m| (k, m))? {
            let old = crate::model::spans::Spans::of(&t).range(&p);
            let (next, r, v) = splice::set_one(&t, &p, &c.value).map_err(|m| (k, m))?;
            let (a, b, len) = match old {
                Some(o) => (o.start, o.end, c.value.len()),
                None => (r.start, r.start, next.len() - t.len()),
            };
            let delta = len as isize - (b - a) as isize;
            let shift = |x: usize| (x as isize + delta) as usize;
            for (_, q, v) in ranges.iter_mut() {
                if q.start >= b {
                    *q = shift(q.start)..shift(q.end);
                    *v = shift(*v);
                } else if q.end >= b {
                    q.end = shift(q.end);
                }
            }
            ranges.push((k, r, v));
            t = next;
        }
    }
    Ok((t, ranges))
}

/// Directory name of a label.
fn dir_name(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-+=".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The most cases a study may have: each holds its model's text in memory and a folder on disk.
pub const MAX_CASES: usize = 10_000;

/// The most bytes of case text a study may hold (its cases' models, in memory at once).
pub const MAX_CASE_BYTES: usize = 1 << 30;

fn cases(
    study: &Path,
    source: &str,
    spans: &Spans,
    def: &StudyDef,
    axes: &[Axis],
    (model_path, registry): (&Path, &Registry),
    base: &str,
) -> Result<Vec<Case>, Box<ModelError>> {
    let count = match def.combine {
        Combine::Cross => axes
            .iter()
            .try_fold(1usize, |n, a| n.checked_mul(a.levels.len())),
        Combine::Zip => Some(axes.first().map_or(1, |a| a.levels.len())),
    };
    let too_many =
        count.is_none_or(|n| n > MAX_CASES || n.saturating_mul(base.len()) > MAX_CASE_BYTES);
    if too_many {
        let n = count.map_or("more than 2^64".to_string(), |n| n.to_string());
        return Err(err(study, source, spans.locate("axes"), "axes",
            format!("the axes make {n} cases; a study may have at most {MAX_CASES} (and {} MiB of case models); split it into several studies or use `combine: Zip` for an explicit list", MAX_CASE_BYTES >> 20)));
    }
    let combos: Vec<Vec<usize>> = match def.combine {
        Combine::Cross => axes.iter().fold(vec![vec![]], |acc, a| {
            acc.iter()
                .flat_map(|c| (0..a.levels.len()).map(move |j| [c.clone(), vec![j]].concat()))
                .collect()
        }),
        Combine::Zip => {
            let n = axes.first().map_or(0, |a| a.levels.len());
            if let Some((a, x)) = axes.iter().enumerate().find(|(_, x)| x.levels.len() != n) {
                return Err(err(study, source, spans.locate(&format!("axes[{a}]")), "combine",
                    format!("`combine: Zip` pairs level k of every axis, but axis `{}` has {} levels and axis `{}` has {n}", x.name, x.levels.len(), axes[0].name)));
            }
            (0..n).map(|k| vec![k; axes.len()]).collect()
        }
    };
    let mut out: Vec<Case> = Vec::new();
    for (index, levels) in combos.into_iter().enumerate() {
        let label = if axes.is_empty() {
            "base".to_string()
        } else {
            levels
                .iter()
                .zip(axes)
                .map(|(&j, a)| a.levels[j].label.as_str())
                .collect::<Vec<_>>()
                .join("/")
        };
        let dir = dir_name(&label);
        if let Some(other) = out.iter().find(|c| c.dir == dir) {
            return Err(err(study, source, spans.locate("axes"), "labels",
                format!("cases `{}` and `{label}` would share the folder `{dir}`; give the levels distinct labels", other.label)));
        }
        let changes: Vec<Change> = levels
            .iter()
            .zip(axes)
            .flat_map(|(&j, a)| a.levels[j].changes.clone())
            .collect();
        let (text, error) = match apply(base, &changes) {
            Ok((t, _)) => {
                let e = crate::model::load::parse_str_with(model_path, &t, registry)
                    .err()
                    .map(|e| {
                        format!(
                            "case `{label}`: {}{}",
                            e.field
                                .as_ref()
                                .map(|f| format!("field `{f}`: "))
                                .unwrap_or_default(),
                            e.message
                        )
                    });
                (t, e)
            }
            Err((k, m)) => (
                base.to_string(),
                Some(format!("case `{label}`: field `{}`: {m}", changes[k].field)),
            ),
        };
        out.push(Case {
            index,
            label,
            dir,
            levels,
            text,
            error,
        });
    }
    Ok(out)
}

/// The RON text of field `path` of a model with its defaults filled in (the model is written
/// back to RON), e.g. `0.001` for `time.dt` or `Pgs(max_iterations: 10, ...)` for `solver`;
/// or why there is none. Paths as in [`splice`] (`bodies[box].density`).
pub fn field_text(model: &crate::model::Model, path: &str) -> Result<String, String> {
    let text = ron::Options::default()
        .with_default_extension(
            Extensions::IMPLICIT_SOME
                | Extensions::UNWRAP_NEWTYPES
                | Extensions::UNWRAP_VARIANT_NEWTYPES,
        )
        .to_string(model)
        .map_err(|e| e.to_string())?;
    let paths = splice::resolve(&text, path)?;
    let p = paths
        .first()
        .ok_or_else(|| format!("`{path}` names nothing"))?;
    let r = Spans::of(&text)
        .range(p)
        .ok_or_else(|| format!("the model has no field `{path}`"))?;
    Ok(text[r].to_string())
}

/// The number at field `path` of a model (its text with defaults filled in: the model is
/// written back to RON), or why there is none.
pub fn field_number(model: &crate::model::Model, path: &str) -> Result<f64, String> {
    let text = field_text(model, path)?;
    let v = text.trim_matches(|c| c == '(' || c == ')');
    v.parse::<f64>()
        .map_err(|_| format!("field `{path}` is `{v}`, not a number"))
}
