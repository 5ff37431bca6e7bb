"""The tests' own layout: test modules share code only through tests/fakes/, never by importing one
another (or conftest), and the benches in tools/ take their fakes from there too."""
import ast
import glob
import os

from fakes.paths import TESTS, TOOLS


def _imports(path):
    """Top-level module names a file imports (absolute imports only; the project uses no relative ones)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _test_modules():
    return sorted(glob.glob(os.path.join(TESTS, "**", "test_*.py"), recursive=True))


def test_no_test_module_imports_another_or_conftest():
    sources = _test_modules() + sorted(glob.glob(os.path.join(TESTS, "fakes", "*.py"))) + \
        sorted(glob.glob(os.path.join(TOOLS, "**", "*.py"), recursive=True))
    bad = {os.path.relpath(p, os.path.dirname(TESTS)): sorted(n for n in _imports(p)
                                                               if n.startswith("test_") or n == "conftest")
           for p in sources}
    assert not {p: n for p, n in bad.items() if n}, "share code through tests/fakes/ instead"


def test_test_module_names_are_unique_and_the_fakes_hold_no_tests():
    names = [os.path.basename(p) for p in _test_modules()]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert not glob.glob(os.path.join(TESTS, "fakes", "test_*.py"))
