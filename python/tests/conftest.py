"""Shared helpers: the repository root, the CLI binary built from the same sources, and
running it."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def cli_binary():
    """`target/release/vcsim` (built by `cargo test --release`; built here if missing)."""
    exe = Path(os.environ.get("VCSIM_BIN", REPO / "target" / "release" / "vcsim"))
    if not exe.exists():
        subprocess.run(
            ["cargo", "build", "--release", "--bin", "vcsim"], cwd=REPO, check=True
        )
    return exe


def cli(*args, cwd=None, check=True):
    """Runs the CLI; returns the completed process (stdout and stderr as text)."""
    p = subprocess.run(
        [str(cli_binary()), *map(str, args)],
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
    )
    if check and p.returncode != 0:
        raise AssertionError(f"vcsim {' '.join(map(str, args))}: {p.returncode}\n{p.stderr}")
    return p


@pytest.fixture
def repo():
    return REPO
