"""The learner's copies: no outputs, and a second run never overwrites a learner's edits."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from minikafka.course.learner_copies import MANIFEST, make_copies

ROOT = Path(__file__).resolve().parents[2]


def outputs_of(notebook: Path) -> list:
    cells = json.loads(notebook.read_text())["cells"]
    return [(c.get("outputs"), c.get("execution_count")) for c in cells if c["cell_type"] == "code"
            if c.get("outputs") or c.get("execution_count") is not None]


def executed_notebook(path: Path, text: str = "print(1)") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Lesson"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 3, "source": [text],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]}]}],
        "metadata": {"widgets": {"state": {}}, "minikafka": {"markers": ["live"]}},
        "nbformat": 4, "nbformat_minor": 5}))


def test_copies_have_no_outputs_and_keep_everything_else(tmp_path):
    source = tmp_path / "lessons"
    executed_notebook(source / "01_a.ipynb")
    executed_notebook(source / "drills" / "predict.ipynb")
    (source / "drills" / "README.md").write_text("guide")
    (source / "nbval_sanitize.cfg").write_text("[x]")
    report = make_copies(source, tmp_path / "mine")
    assert sorted(report.made) == ["01_a.ipynb", "drills/README.md", "drills/predict.ipynb"]
    copy = json.loads((tmp_path / "mine" / "01_a.ipynb").read_text())
    assert outputs_of(tmp_path / "mine" / "01_a.ipynb") == []
    assert "widgets" not in copy["metadata"] and copy["metadata"]["minikafka"] == {"markers": ["live"]}
    assert copy["cells"][1]["source"] == ["print(1)"]
    assert (tmp_path / "mine" / "drills" / "README.md").read_text() == "guide"
    assert not (tmp_path / "mine" / "nbval_sanitize.cfg").exists()


def test_a_second_run_keeps_edits_and_refreshes_untouched_copies(tmp_path):
    source, mine = tmp_path / "lessons", tmp_path / "mine"
    executed_notebook(source / "01_a.ipynb")
    executed_notebook(source / "02_b.ipynb")
    make_copies(source, mine)
    edited = (mine / "01_a.ipynb").read_text().replace("print(1)", "print('my answer')")
    (mine / "01_a.ipynb").write_text(edited)
    (mine / "notes.txt").write_text("mine")
    executed_notebook(source / "01_a.ipynb", "print(2)")           # both lessons change upstream
    executed_notebook(source / "02_b.ipynb", "print(2)")
    executed_notebook(source / "03_c.ipynb")                       # and a new one appears
    report = make_copies(source, mine)
    assert report.made == ["03_c.ipynb"] and report.updated == ["02_b.ipynb"]
    assert report.kept == ["01_a.ipynb"]
    assert (mine / "01_a.ipynb").read_text() == edited
    assert "print(2)" in (mine / "02_b.ipynb").read_text()
    assert (mine / "notes.txt").read_text() == "mine"
    assert "kept your edited 01_a.ipynb" in report.summary()
    again = make_copies(source, mine)
    assert (again.made, again.updated) == ([], []) and again.kept == ["01_a.ipynb"]


def test_a_file_of_the_learners_with_a_lessons_name_is_never_overwritten(tmp_path):
    source, mine = tmp_path / "lessons", tmp_path / "mine"
    executed_notebook(source / "01_a.ipynb")
    mine.mkdir()
    (mine / "01_a.ipynb").write_text("{}")
    assert make_copies(source, mine).kept == ["01_a.ipynb"]
    assert (mine / "01_a.ipynb").read_text() == "{}"
    assert "01_a.ipynb" not in json.loads((mine / MANIFEST).read_text())


def test_bad_folders_are_refused_in_one_line(tmp_path):
    run = subprocess.run([sys.executable, "-m", "minikafka.course", "copies", "--source",
                          str(tmp_path / "nowhere"), "--dest", str(tmp_path / "x")],
                         capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr == f"python -m minikafka.course copies: No lessons folder at {tmp_path / 'nowhere'}\n"
    with pytest.raises(ValueError, match="another folder"):
        make_copies(ROOT / "lessons", ROOT / "lessons")


def test_make_lab_copies_the_repositorys_lessons_without_outputs_and_keeps_edits(tmp_path):
    """`make learner-copies` (the step `make lab` runs first), twice, with an edit between."""
    dest = tmp_path / "my-lessons"
    command = ["make", "--no-print-directory", "learner-copies", f"LEARNER_DIR={dest}"]
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    first = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    lessons = sorted(p.relative_to(ROOT / "lessons") for p in (ROOT / "lessons").rglob("*.ipynb"))
    copies = sorted(p.relative_to(dest) for p in dest.rglob("*.ipynb"))
    assert copies == lessons and len(copies) >= 8
    for copy in copies:
        assert outputs_of(dest / copy) == [], f"{copy} has outputs"
    assert any(outputs_of(ROOT / "lessons" / lesson) for lesson in lessons)   # the reference keeps them
    index = dest / "00_index.ipynb"
    index.write_text(index.read_text().replace("minikafka", "my notes on minikafka", 1))
    edited = index.read_text()
    second = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert index.read_text() == edited
    assert "0 new, 0 updated" in second.stdout


def test_binder_postbuild_makes_the_copies_the_readme_link_opens(tmp_path):
    lines = [line for line in (ROOT / "binder" / "postBuild").read_text().splitlines()
             if "minikafka.course copies" in line]
    assert len(lines) == 1
    words = shlex.split(lines[0])
    assert words[:4] == ["python", "-m", "minikafka.course", "copies"]
    dest = words[words.index("--dest") + 1]
    assert f"urlpath=lab/tree/{dest}/00_index.ipynb" in (ROOT / "README.md").read_text()
    # Run the same command on a copy of the repository's lessons, as repo2docker would.
    (tmp_path / "lessons").symlink_to(ROOT / "lessons")
    run = subprocess.run([sys.executable, *words[1:]], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr
    copies = list((tmp_path / dest).rglob("*.ipynb"))
    assert len(copies) >= 8 and all(outputs_of(c) == [] for c in copies)


def test_lab_settings_merge_into_the_environments_overrides(tmp_path):
    from minikafka.course.lab_settings import overrides_path, write_overrides
    path = overrides_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"},
                                "@jupyterlab/apputils-extension:notification": {"doNotDisturbMode": True}}))
    write_overrides(tmp_path)
    written = json.loads(path.read_text())
    assert written["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}
    assert written["@jupyterlab/apputils-extension:notification"] == {
        "doNotDisturbMode": True, "fetchNews": "false", "checkForUpdates": False}
    assert "minikafka.course lab-settings" in (ROOT / "binder" / "postBuild").read_text()
