//! Render errors, split by exit code.

/// Why a render failed: the run folder or the options (exit code 2), or writing the pictures
/// (exit code 1).
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A folder that is not a run, unreadable frames, options that do not fit.
    #[error("{0}")]
    Input(String),
    /// The pictures could not be drawn or written.
    #[error("{0}")]
    Output(String),
}

impl From<String> for RenderError {
    fn from(s: String) -> Self {
        RenderError::Input(s)
    }
}

impl From<&str> for RenderError {
    fn from(s: &str) -> Self {
        RenderError::Input(s.to_string())
    }
}
