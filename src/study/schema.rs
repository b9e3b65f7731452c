//! The study file's RON types (`Study(...)`): what a user writes. Reading and checking them is
//! [`super::expand`]; the meaning of each field is documented here, where the book's study
//! chapter points.

use ron::value::RawValue;
use serde::{Deserialize, Serialize};

/// A comparative study: one base model, axes that change its fields, the metrics taken from
/// each case, references to compare with, and the plots of the report.
#[derive(Debug, Deserialize)]
#[serde(rename = "Study", deny_unknown_fields)]
pub struct StudyDef {
    /// What the study shows (Markdown; the report's first paragraph).
    #[serde(default)]
    pub description: String,
    /// The base model file, relative to the study file.
    pub model: String,
    /// Changes made to the base model in every case, before the axes': `[("time.end", 0.3)]`.
    #[serde(default)]
    pub set: Vec<(String, Box<RawValue>)>,
    /// The axes; each case takes one level of each.
    pub axes: Vec<AxisDef>,
    /// How levels combine into cases. Default `Cross` (every combination).
    #[serde(default)]
    pub combine: Combine,
    /// What is taken from each case (columns of `table.csv`). Default: wall time, time per
    /// step, mean iterations, steps at the cap and the largest compression.
    #[serde(default)]
    pub metrics: Vec<MetricDef>,
    /// Reference data and analytic solutions, by name.
    #[serde(default)]
    pub references: Vec<ReferenceDef>,
    /// The report's figures.
    #[serde(default)]
    pub plots: Vec<PlotDef>,
}

/// How the levels of the axes make cases.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Combine {
    /// Every combination of one level per axis (axis order: the first varies slowest).
    #[default]
    Cross,
    /// Level k of every axis in case k (all axes the same length): an explicit list.
    Zip,
}

/// One axis of a study.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum AxisDef {
    /// One model field, one value per level:
    /// `Field(name: "dt", field: "time.dt", values: [1e-3, 5e-4])`.
    ///
    /// Field paths: `time.dt`, `fluid.method`, `fluid.method.cfl`, `solver`,
    /// `contact.resolver`; list items by index (`bodies[1].density`), by name
    /// (`bodies[ball].density`, `materials[steel].friction`) or all of them
    /// (`materials[*].restitution`). A field the base model leaves at its default is added.
    Field {
        /// The axis' name (a column of the table).
        name: String,
        /// The model field the axis sets.
        field: String,
        /// The values, written as in a model file (`1e-3`, `Wcsph(cfl: 0.2)`, `"name"`).
        values: Vec<Box<RawValue>>,
        /// Short labels of the values, in the same order (default: the values' text).
        #[serde(default)]
        labels: Vec<String>,
    },
    /// Levels that each set several fields: `Cases(name: "ground", levels: [(label: "flat",
    /// set: [("bodies[ground].position", (0, 0, -0.5))]), ...])`.
    Cases {
        /// The axis' name.
        name: String,
        /// The levels.
        levels: Vec<LevelDef>,
    },
}

/// A level of a [`AxisDef::Cases`] axis.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelDef {
    /// Short label (a table cell; part of the case's label).
    pub label: String,
    /// The number plotted for this level on a response or convergence plot (optional).
    #[serde(default)]
    pub value: Option<f64>,
    /// The fields this level sets, in order.
    #[serde(default)]
    pub set: Vec<(String, Box<RawValue>)>,
}

/// A number, or an expression of numbers (`"sqrt(2*9.81/0.146)"`: `+ - * / ^`, parentheses,
/// `sqrt exp ln sin cos tan tanh abs`, `pi`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Num(pub f64);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Num;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or an expression in quotes, e.g. \"sqrt(2*9.81/0.146)\"")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Num, E> {
                super::expr::eval(v).map(Num).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// Where a frequency comes from.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Frequency {
    /// A fixed frequency (Hz).
    Hz(Num),
    /// A numeric model field of the case (Hz), e.g. `Field("bodies[tank].motion.frequency")`.
    Field(String),
    /// One over a numeric model field of the case that holds a period (s), e.g.
    /// `Period("bodies[paddle].motion.period")` for a wavemaker.
    Period(String),
}

/// How errors against reference points are summarised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Norm {
    /// Mean of |sim − ref| / |ref| (dimensionless).
    MeanRelative,
    /// Largest |sim − ref| / |ref|.
    MaxRelative,
    /// Root mean square of sim − ref (reference units).
    Rms,
    /// Largest |sim − ref| (reference units).
    MaxAbs,
}

/// A number taken from a case: a column of `table.csv`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum MetricDef {
    /// A probe column's value at the last sample: `Final(column: "ball.pos.y")`.
    Final {
        /// The probe column (as in `probes.csv`).
        column: String,
        /// The metric's name (default: the column).
        #[serde(default)]
        name: Option<String>,
    },
    /// Mean of a probe column over samples with `from ≤ t ≤ to` (s; default the whole run).
    Mean {
        /// The probe column.
        column: String,
        /// Start of the window (s).
        #[serde(default)]
        from: Option<f64>,
        /// End of the window (s).
        #[serde(default)]
        to: Option<f64>,
        /// The metric's name (default `mean <column>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// Largest value of a probe column over a window (as `Mean`).
    Max {
        /// The probe column.
        column: String,
        /// Start of the window (s).
        #[serde(default)]
        from: Option<f64>,
        /// End of the window (s).
        #[serde(default)]
        to: Option<f64>,
        /// The metric's name (default `max <column>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// Smallest value of a probe column over a window (as `Mean`).
    Min {
        /// The probe column.
        column: String,
        /// Start of the window (s).
        #[serde(default)]
        from: Option<f64>,
        /// End of the window (s).
        #[serde(default)]
        to: Option<f64>,
        /// The metric's name (default `min <column>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// Amplitude of a probe column at a frequency: least-squares fit of
    /// `a sin ωt + b cos ωt + c` (plus a sine and cosine at each of `free`, e.g. a tank's
    /// natural frequencies) over `t ≥ from`; the amplitude is √(a² + b²).
    Amplitude {
        /// The probe column.
        column: String,
        /// The frequency (Hz).
        frequency: Frequency,
        /// Start of the window (s; default 0).
        #[serde(default)]
        from: Option<f64>,
        /// Further frequencies fitted alongside (Hz).
        #[serde(default)]
        free: Vec<Num>,
        /// Divide by the amplitude of this column at the same frequency over the same window
        /// (a response amplitude operator: a body's heave over a wave gauge's elevation, m/m).
        /// Default none.
        #[serde(default)]
        over: Option<String>,
        /// The metric's name (default `amplitude <column>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// Error of a probe column against a reference: the series is mapped into the reference's
    /// units (its `x_scale`, `y_scale`) and compared at each data point inside the run
    /// (interpolated), or with a formula at every sample; only abscissae within
    /// `from ≤ X ≤ until` (reference units) count.
    Error {
        /// The probe column.
        column: String,
        /// The reference's name.
        reference: String,
        /// How the point errors are summarised.
        norm: Norm,
        /// First reference abscissa compared (reference units).
        #[serde(default)]
        from: Option<f64>,
        /// Last reference abscissa compared (reference units).
        #[serde(default)]
        until: Option<f64>,
        /// The metric's name (default `error <column>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// Relative deviation of another metric from an analytic reference at a model field's
    /// value: `(m·y_scale − r(x·x_scale)) / r(x·x_scale)`, with the reference's scales.
    Deviation {
        /// The metric compared (an earlier metric's name).
        metric: String,
        /// The analytic reference's name.
        reference: String,
        /// The model field that gives x (mapped by the reference's `x_scale`); none for a
        /// constant reference.
        #[serde(default)]
        x: Option<String>,
        /// The metric's name (default `deviation <metric>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// Mean period (s) of an oscillating probe column over a window (as `Mean`): the time
    /// between its first and last upward crossings of the window's mean, divided by the
    /// number of periods between them (at least one). A crossing counts only once the column
    /// has been below the mean by a twentieth of its largest deviation since the last one, so
    /// ripples do not add crossings.
    Period {
        /// The probe column.
        column: String,
        /// Start of the window (s).
        #[serde(default)]
        from: Option<f64>,
        /// End of the window (s).
        #[serde(default)]
        to: Option<f64>,
        /// Half the difference of `column` and this column instead of `column` alone (two
        /// gauges by opposite walls: a tank's first mode, without the modes both see alike).
        /// Default none.
        #[serde(default)]
        minus: Option<String>,
        /// The metric's name (default `period <column>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// Fraction of an oscillation's amplitude lost per period over a window (as `Mean`):
    /// `1 − e^s`, s the least-squares slope of `ln p_n` over n, p_n the largest deviations from
    /// the window's mean between successive upward crossings (at least two; crossings as in
    /// `Period`).
    Decay {
        /// The probe column.
        column: String,
        /// Start of the window (s).
        #[serde(default)]
        from: Option<f64>,
        /// End of the window (s).
        #[serde(default)]
        to: Option<f64>,
        /// Half the difference of `column` and this column instead of `column` alone (two
        /// gauges by opposite walls: a tank's first mode, without the modes both see alike).
        /// Default none.
        #[serde(default)]
        minus: Option<String>,
        /// The metric's name (default `decay <column>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// Damping ratio ζ (dimensionless) of an oscillation decaying over a window (as `Mean`):
    /// the least-squares damped sine `c + e^(−σt)(a cos ω_d t + b sin ω_d t)` fitted to the
    /// window's samples, ζ = σ/√(σ² + ω_d²). Unlike `Decay` it needs no whole period between
    /// crossings, so it reads a heavily damped free decay (a floating body's heave) from its
    /// first one or two periods.
    DampingRatio {
        /// The probe column.
        column: String,
        /// Start of the window (s).
        #[serde(default)]
        from: Option<f64>,
        /// End of the window (s): before the motion is lost in the noise.
        #[serde(default)]
        to: Option<f64>,
        /// Half the difference of `column` and this column instead of `column` alone.
        /// Default none.
        #[serde(default)]
        minus: Option<String>,
        /// The metric's name (default `damping_ratio <column>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// Damped period 2π/ω_d (s) of the damped sine of `DampingRatio`: the period of a free
    /// decay that lasts too few periods for `Period`'s crossings.
    DampedPeriod {
        /// The probe column.
        column: String,
        /// Start of the window (s).
        #[serde(default)]
        from: Option<f64>,
        /// End of the window (s): before the motion is lost in the noise.
        #[serde(default)]
        to: Option<f64>,
        /// Half the difference of `column` and this column instead of `column` alone.
        /// Default none.
        #[serde(default)]
        minus: Option<String>,
        /// The metric's name (default `damped_period <column>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// Relative change of a probe column from the first sample to the last: (last − first) /
    /// |first| (e.g. the energy drift of `total`).
    Drift {
        /// The probe column.
        column: String,
        /// The metric's name (default `drift <column>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// A numeric model field of the case (e.g. `fluid.spacing`), times `scale` (default 1).
    Field {
        /// The field path.
        field: String,
        /// Factor on the value.
        #[serde(default)]
        scale: Option<Num>,
        /// The metric's name (default the path).
        #[serde(default)]
        name: Option<String>,
    },
    /// An earlier metric of this case over an earlier metric of its calibration case: the case
    /// with the same levels on every axis but those named in `case`, where it has the level
    /// given. A body's heave over the incident wave measured at its place in a run without it,
    /// as experiments divide by their calibration runs:
    /// `Over(metric: "heave_m", by: "incident_m", case: [("hull", "none")], name: "heave_rao")`.
    Over {
        /// This case's metric (an earlier metric's name).
        metric: String,
        /// The calibration case's metric (an earlier metric's name, not another `Over`).
        by: String,
        /// The calibration case: (axis name, level label) pairs.
        case: Vec<(String, String)>,
        /// The metric's name (default `<metric>/<by>`).
        #[serde(default)]
        name: Option<String>,
    },
    /// A number of the run itself.
    Run(RunMetric),
}

/// The numbers every run reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunMetric {
    /// Wall time of the run (s): `wall_s`.
    WallTime,
    /// Wall time per step (ms): `ms_per_step`.
    TimePerStep,
    /// Wall time per simulated second (s/s): `wall_per_sim_s`.
    WallPerSimSecond,
    /// Steps taken: `steps`.
    Steps,
    /// Mean solver iterations per step: `mean_iterations`.
    MeanIterations,
    /// Solver iterations of the first step: `first_iterations`.
    FirstIterations,
    /// Steps whose solve stopped at the iteration cap: `steps_at_cap`.
    StepsAtCap,
    /// Largest fluid compression (ρ − ρ0)/ρ0 of any step, in per cent: `max_compression_pct`.
    LargestCompression,
    /// Mean sub-steps per step: an explicit fluid method's, or the constraint method's where a
    /// particle is fast (its `cfl`): `mean_substeps`.
    MeanSubsteps,
    /// ISPH: mean conjugate-gradient iterations per pressure solve: `pressure_iterations`.
    PressureIterations,
    /// Impulse resolvers: impulses per step: `impulses_per_step`.
    ImpulsesPerStep,
    /// Fluid particles: `particles`.
    Particles,
    /// Largest final residual of a step's solve (m/s): `max_residual`.
    MaxResidual,
}

/// Reference data or an analytic solution.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceDef {
    /// The name metrics and plots use.
    pub name: String,
    /// Where the reference comes from.
    pub source: Source,
    /// Factor taking a simulated abscissa (time, s; or a field's value) into the reference's
    /// (e.g. `"sqrt(2*9.81/0.146)"` for T = t √(2g/L)). Default 1.
    #[serde(default)]
    pub x_scale: Option<Num>,
    /// Factor taking a simulated value into the reference's (e.g. `"1/0.146"` for Z = x/L).
    /// Default 1.
    #[serde(default)]
    pub y_scale: Option<Num>,
    /// Axis label of the reference's abscissa on plots (default "t (s)").
    #[serde(default)]
    pub x_label: Option<String>,
    /// Axis label of the reference's values on plots.
    #[serde(default)]
    pub y_label: Option<String>,
    /// Legend text (default: the name).
    #[serde(default)]
    pub legend: Option<String>,
}

/// The source of a reference.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Source {
    /// Points from a CSV file (relative to the study file; `#` lines are comments, the first
    /// other line names the columns). `series` keeps the rows whose `series` column has that
    /// value.
    Data {
        /// The CSV file.
        file: String,
        /// Keep only rows whose `series` column equals this.
        #[serde(default)]
        series: Option<String>,
        /// Column of the abscissa.
        x: String,
        /// Column of the value.
        y: String,
    },
    /// y = slope x + intercept (e.g. a submerged fraction equal to the density ratio).
    Line {
        /// Slope.
        slope: Num,
        /// Intercept.
        #[serde(default)]
        intercept: Option<Num>,
    },
    /// Transient plane Poiseuille flow from rest (Morris, Fox & Zhu 1997; 004 eq. 60, sign
    /// fixed): the fluid's kinetic energy (J per metre of thickness) at time x (s) between
    /// no-slip plates `height` (m) apart, over a periodic `length` (m), driven by a body force
    /// `force` (m/s²), kinematic viscosity `viscosity` (m²/s), `density` (kg/m³).
    Poiseuille {
        /// Body force along the channel (m/s²).
        force: Num,
        /// Kinematic viscosity (m²/s).
        viscosity: Num,
        /// Distance between the plates (m).
        height: Num,
        /// Periodic length of the channel (m).
        length: Num,
        /// Density (kg/m³).
        density: Num,
    },
    /// Dodge's linear force amplitude (N per metre of thickness in 2D) on a rectangular tank
    /// of `width` (m) holding water `depth` (m) deep of `density` (kg/m³), shaken sideways
    /// with amplitude `amplitude` (m), against the forcing frequency x (Hz); `gravity` default
    /// 9.81 m/s². Dodge (2000) §3, as quoted in 004 §4.4.
    Dodge {
        /// Tank width w (m).
        width: Num,
        /// Water depth h (m).
        depth: Num,
        /// Forcing amplitude X0 (m).
        amplitude: Num,
        /// Water density (kg/m³).
        density: Num,
        /// Gravity (m/s²).
        #[serde(default)]
        gravity: Option<Num>,
    },
}

/// A figure of the report (PNG and SVG).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum PlotDef {
    /// A probe column of every case against time, overlaid on references (mapped into the
    /// first reference's units when there is one).
    Series {
        /// The probe column.
        column: String,
        /// References drawn as points.
        #[serde(default)]
        references: Vec<String>,
        /// Title.
        #[serde(default)]
        title: Option<String>,
        /// Last abscissa drawn (plot units).
        #[serde(default)]
        until: Option<f64>,
    },
    /// A metric against an axis' numeric value, one line per level of `group` (an axis), with
    /// an analytic reference drawn as a curve.
    Response {
        /// The metric (its name in the table).
        metric: String,
        /// The axis along x.
        x: String,
        /// The axis whose levels are separate lines.
        #[serde(default)]
        group: Option<String>,
        /// An analytic reference r(x · x_scale) drawn as a line.
        #[serde(default)]
        reference: Option<String>,
        /// Title.
        #[serde(default)]
        title: Option<String>,
        /// Logarithmic axes.
        #[serde(default)]
        log: bool,
    },
    /// An error metric against a resolution axis on log–log axes, with the fitted order of
    /// convergence per group.
    Convergence {
        /// The error metric.
        metric: String,
        /// The resolution axis (e.g. the spacing).
        x: String,
        /// The axis whose levels are separate lines.
        #[serde(default)]
        group: Option<String>,
        /// Title.
        #[serde(default)]
        title: Option<String>,
    },
    /// Cost against accuracy: one marker per case, the Pareto front drawn.
    CostAccuracy {
        /// The cost metric (e.g. `wall_s`).
        cost: String,
        /// The error metric (smaller is better).
        error: String,
        /// The axis whose levels get their own colour.
        #[serde(default)]
        group: Option<String>,
        /// Title.
        #[serde(default)]
        title: Option<String>,
    },
}
