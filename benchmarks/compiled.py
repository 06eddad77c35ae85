"""The compiled-kernel route of issue 11, measured: ARH's hot modules compiled by Cython
from the same .py files, against the same source run as plain Python.

    python benchmarks/compiled.py --out DIR [--python PY] [--runs 3] [--equivalence REF]

Needs Cython 3 and a C compiler in the interpreter given by `--python` (default: this
one); neither is a dependency of ARH or of its extras (`pip install cython setuptools`
in a scratch venv of the same Python version). The script:
  1. copies src/ to DIR/src and compiles HOT there, in place, with annotation_typing
     off (type hints stay hints: a compiled function accepts what the .py accepts);
  2. with `--equivalence REF` (a directory written by `equivalence.py --reference`),
     checks that the compiled build writes the same bytes in every report format;
  3. counts the instructions of one `validate --jobs 1` of each build on 500 trace
     files and on a 20,000-step faulted trace, when valgrind is on PATH (exact from
     run to run, where CPU seconds on a shared machine are not);
  4. runs benchmarks/paired.py with the plain source as the reference build.
Issue 11 allows a compiled kernel only from one source, for a measured gain above
1.5x, with byte-identical reports.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import paired  # noqa: E402
from equivalence import long_faulted_trace  # noqa: E402

SRC = HERE.parent / "src"
PACKAGE = "agent_reliability_harness"
# Where a trace's evaluation spends its time: reading, the facts, every rule, scoring and
# the report objects (docs/scaling.md, "Where the time goes").
HOT = (
    *(f"rules/{name}.py" for name in (
        "_effective_status", "arguments", "base", "budget", "completion", "dataflow",
        "facts", "flow", "grounding", "safety", "schema", "screen", "sequence", "status",
        "totals", "trajectory",
    )),
    "engine.py", "scoring.py", "patterns.py", "reading.py", "models/trace.py",
    "models/report.py", "pipeline/process.py", "pipeline/documents.py", "pipeline/partial.py",
)  # fmt: skip

BUILD = """\
import sys
from Cython.Build import cythonize
from setuptools import setup
modules = cythonize(sys.argv[1:], quiet=True, nthreads=2,
                    compiler_directives={"language_level": 3, "annotation_typing": False})
setup(ext_modules=modules, script_args=["build_ext", "--inplace", "-j", "2"])
"""


def build(out: Path, python: str) -> Path:
    """DIR/src: a copy of src/ with HOT compiled in place; returns it."""
    probe = [python, "-c", "import Cython, setuptools"]
    if subprocess.run(probe, capture_output=True, check=False).returncode:
        raise SystemExit(f"{python} has no Cython: pip install cython setuptools (in a venv)")
    target = out / "src"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(SRC, target, ignore=shutil.ignore_patterns("__pycache__"))
    modules = [f"{PACKAGE}/{name}" for name in HOT]
    subprocess.run(
        [python, "-c", BUILD, *modules], cwd=target, check=True, stdout=subprocess.DEVNULL
    )
    built = sorted(target.glob(f"{PACKAGE}/**/*.so"))
    if len(built) != len(HOT):
        raise SystemExit(f"expected {len(HOT)} compiled modules, found {len(built)}")
    return target


def _inputs(work: Path) -> dict[str, list[str]]:
    (work / "policy.json").write_text(json.dumps(corpus.POLICY))
    files = work / "files"
    files.mkdir()
    for index in range(500):
        trace, _ = corpus.make_trace(4, index)
        (files / f"t{index:05d}.json").write_text(json.dumps(trace))
    long = work / "long.json"
    long.write_text(json.dumps(long_faulted_trace(20_000), separators=(",", ":")))
    base = ["validate", "--policy", "policy.json", "--jobs", "1", "--quiet"]
    base += ["--json-out", "out.json"]
    return {"500 trace files": [*base, "files"], "20k-step trace": [*base, "long.json"]}


def _instructions(src: Path, args: list[str], work: Path) -> int:
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONPYCACHEPREFIX": str(work / "pyc")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [sys.executable, "-m", PACKAGE, *args]
    subprocess.run(command, cwd=work, env=env, capture_output=True, check=False)  # warm .pyc
    grind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command]
    done = subprocess.run(grind, cwd=work, env=env, capture_output=True, text=True, check=False)
    for line in done.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    raise SystemExit(f"no instruction count from valgrind: {done.stderr[-500:]}")


def instructions(compiled: Path) -> None:
    """The instruction counts of both builds, as a Markdown table."""
    print("| input | plain Ir (M) | compiled Ir (M) | compiled/plain |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="arh-compiled-") as tmp:
        work = Path(tmp)
        for name, args in _inputs(work).items():
            plain, fast = (_instructions(src, args, work) for src in (SRC, compiled))
            print(f"| {name} | {plain / 1e6:,.0f} | {fast / 1e6:,.0f} | {fast / plain:.3f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="where the compiled copy goes")
    parser.add_argument("--python", default=sys.executable, help="an interpreter with Cython")
    parser.add_argument("--runs", type=int, default=3, help="paired runs per input")
    parser.add_argument("--equivalence", type=Path, help="outputs of equivalence.py --reference")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    compiled = build(args.out.resolve(), args.python)
    print(f"compiled {len(HOT)} modules into {compiled}")
    if args.equivalence:
        check = [sys.executable, str(HERE / "equivalence.py"), "--compare", str(args.equivalence)]
        if subprocess.run([*check, "--src", str(compiled)], check=False).returncode:
            return 1
    if shutil.which("valgrind"):
        instructions(compiled)
    return paired.main(["--ref", str(SRC), "--new", str(compiled), "--runs", str(args.runs)])


if __name__ == "__main__":
    sys.exit(main())
