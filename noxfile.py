"""Developer sessions. `nox -s lint tests` before a pull request; CI runs `.ci/run`."""

import nox

nox.options.sessions = ["lint", "tests"]
PYTHONS = ["3.10", "3.11", "3.12", "3.13", "3.14"]
# The code the project lints. The notebooks are left out: their sources are committed with the outputs of a real
# run, so a fix there means re-executing them (`nox -s notebooks`), not `--fix`.
LINTED = ["structsim_nb", "tests", "bench", "recordings", "examples/notebooks/walkthrough_schema.py", "noxfile.py"]


@nox.session
def lint(session: nox.Session) -> None:
    """Check only: ruff lint and format."""
    session.install("ruff")
    session.run("ruff", "check", *LINTED)
    session.run("ruff", "format", "--check", *LINTED)


@nox.session
def fmt(session: nox.Session) -> None:
    """Fix lint and formatting in place."""
    session.install("ruff")
    session.run("ruff", "check", "--fix", *LINTED)
    session.run("ruff", "format", *LINTED)


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy over the package."""
    session.install("-e", ".[dev]")
    session.run("mypy", "structsim_nb")


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The whole suite, notebooks included, offline."""
    session.install("-e", ".[dev]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session
def notebooks(session: nox.Session) -> None:
    """Re-execute the notebooks in place, so their committed outputs come from a real run."""
    session.install("-e", ".[dev]")
    session.run("python", "-m", "structsim_nb._notebooks", *session.posargs)


@nox.session
def wheel(session: nox.Session) -> None:
    """Build the wheel, install it (not the working tree) and run the suite against it."""
    session.install("build")
    session.run("python", "-m", "build", "--wheel", "--outdir", session.create_tmp())
    session.install("--find-links", session.create_tmp(), "structsim-nb[dev]")
    session.run("python", "-m", "pytest", "-p", "no:cacheprovider", *session.posargs)
