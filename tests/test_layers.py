"""The package's folders are its layers (STYLE.md; gin_sim/*/__init__.py say which may import
which): every import, at module level or inside a function, points down or stays in its
folder, and no modules import each other in a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import gin_sim

PACKAGE = Path(gin_sim.__file__).parent
# Bottom to top. The root's __init__ and __main__ are the top (the public API and the
# command); gin_sim.version is a leaf anyone may read.
LAYERS = ("kernels", "game", "players", "reference", "experiments", "reports", "interfaces")
TOP = len(LAYERS)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in ("__main__",):
        return TOP
    if parts[1] == "version":
        return -1
    return LAYERS.index(parts[1])


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The gin_sim modules ``path`` imports, wherever in the file the import stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("gin_sim"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gin_sim"):
            assert node.level == 0, f"{path}: relative import"
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in known else node.module)
    return found


def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(path, known) - {name} for name, path in found.items()}


def test_every_module_lives_in_a_layer() -> None:
    for name in modules():
        layer(name)  # raises ValueError for a module outside the layers


def test_no_import_points_up() -> None:
    upward = [
        f"{source} (layer {layer(source)}) imports {target} (layer {layer(target)})"
        for source, targets in import_graph().items()
        for target in sorted(targets)
        if target != "gin_sim" and layer(target) > layer(source)
    ]
    upward += [
        f"{source} imports the package root"
        for source, targets in import_graph().items()
        if "gin_sim" in targets and layer(source) < TOP
    ]
    assert upward == []


def circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (depth-first search), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        state[node] = 2
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_circles() -> None:
    # A package's __init__ re-exports its modules; an arrow into the package is one into
    # those modules, so the root and the packages' __init__ files are left out.
    graph = import_graph()
    packages = {name for name in graph if (PACKAGE.parent / name.replace(".", "/")).is_dir()}
    modules_only = {
        source: targets - packages for source, targets in graph.items() if source not in packages
    }
    assert circle(modules_only) is None


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
        ({"a": {"b"}, "b": {"c"}, "c": {"b"}}, ["b", "c", "b"]),
    ],
)
def test_the_circle_finder_finds_circles(graph, expected) -> None:
    assert circle(graph) == expected


def test_an_upward_import_is_seen(tmp_path: Path) -> None:
    # the probe the tests above rely on: a function-level import is read like any other
    source = tmp_path / "probe.py"
    source.write_text("def f():\n    from gin_sim.reports.build import knock\n")
    known = set(modules())
    assert imports_of(source, known) == {"gin_sim.reports.build"}
    assert layer("gin_sim.reports.build") > layer("gin_sim.kernels.search")


@pytest.mark.full
def test_the_kernel_cache_is_new_whenever_any_kernel_source_changes(tmp_path: Path) -> None:
    # numba checks a cached function against its own file only (gin_sim.game.environment)
    import os
    import shutil
    import subprocess
    import sys

    from gin_sim.game.environment import KERNELS, kernel_cache_folder

    copy = tmp_path / "kernels"
    shutil.copytree(KERNELS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = kernel_cache_folder(copy)
    assert before.name == kernel_cache_folder(KERNELS).name  # by content, not by place
    source = copy / "enums.py"
    source.write_text(source.read_text() + "\n# changed\n")
    assert kernel_cache_folder(copy).name != before.name
    environment = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    shown = subprocess.run(
        [sys.executable, "-c", "import gin_sim, os; print(os.environ['NUMBA_CACHE_DIR'])"],
        capture_output=True, text=True, env=environment, check=True,
    ).stdout.strip()  # fmt: skip
    assert shown == str(kernel_cache_folder())
    # numba imported before gin-sim (as a test runner or a user's program may) uses it too
    script = "import numba, gin_sim, gin_sim.kernels.deadwood; print(numba.config.CACHE_DIR)"
    shown = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=environment, check=True
    ).stdout.strip()
    assert shown == str(kernel_cache_folder())
