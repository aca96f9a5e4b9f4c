"""A kernel compiled without a CPython wrapper (``no_cpython_wrapper=True``: kernels only other
kernels call) has no entry for Python: a call from Python would jump to a null address. So no
Python code of the project may name one outside a kernel. This test reads every module of the
package, the tests, benchmarks and tools, resolves each name through the module's imports, and
lists every such use; it compiles nothing.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from numba.core.registry import CPUDispatcher

import rootwise

ROOT = Path(rootwise.__file__).parent.parent
FOLDERS = ("rootwise", "tests", "benchmarks", "tools")


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_kernel(function: ast.FunctionDef) -> bool:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if getattr(target, "id", None) == "njit" or getattr(target, "attr", None) == "njit":
            return True
    return False


def _without_wrapper() -> set[tuple[str, str]]:
    """(module, name) of every package kernel compiled without a CPython wrapper."""
    found = set()
    for path in sorted((ROOT / "rootwise").rglob("*.py")):
        if "njit" not in path.read_text(encoding="utf-8"):
            continue
        module = importlib.import_module(_module_name(path))
        for name, value in vars(module).items():
            if (isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__
                    and value.targetoptions.get("no_cpython_wrapper")):
                found.add((module.__name__, name))
    return found


def _imported_from(path: Path, root: Path, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    base = _module_name(path, root).split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _python_uses(path: Path, kernels: set[tuple[str, str]], root: Path = ROOT) -> list[str]:
    """Where the module at ``path`` (under ``root``) names one of ``kernels`` outside a kernel's
    body."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = _module_name(path, root)
    names = {name: (module, name) for module, name in kernels if module == me}
    modules = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _imported_from(path, root, node.level, node.module)
            for alias in node.names:
                local = alias.asname or alias.name
                if (source, alias.name) in kernels:
                    names[local] = (source, alias.name)
                modules[local] = f"{source}.{alias.name}" if source else alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                modules[local] = alias.name if alias.asname else alias.name.split(".")[0]
    uses = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef) and _is_kernel(child):
                continue  # a kernel may call it: numba calls it without the wrapper
            if isinstance(child, ast.Attribute) and child.attr in INSPECTION:
                continue  # the dispatcher looked at (its compiled signatures, cache), not called
            if isinstance(child, ast.Name) and child.id in names:
                uses.append(f"{path.relative_to(root)}:{child.lineno} {child.id}")
            elif isinstance(child, ast.Attribute):
                chain, value = [], child
                while isinstance(value, ast.Attribute):
                    chain.append(value.attr)
                    value = value.value
                if isinstance(value, ast.Name) and value.id in modules:
                    module, _, name = f"{modules[value.id]}.{'.'.join(reversed(chain))}".rpartition(".")
                    if (module, name) in kernels:
                        uses.append(f"{path.relative_to(root)}:{child.lineno} {module}.{name}")
            visit(child)

    visit(tree)
    return uses


# a dispatcher's attributes a test may read without calling the kernel
INSPECTION = {"overloads", "signatures", "stats", "py_func", "_cache"}


def test_no_python_code_names_a_kernel_without_a_cpython_wrapper():
    kernels = _without_wrapper()
    assert len(kernels) > 100  # most kernels are called only by other kernels
    uses = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            uses += _python_uses(path, kernels)
    assert uses == []


def test_the_check_finds_a_python_call_of_such_a_kernel(tmp_path):
    # a module that calls one from Python by its name and through its module, as a test might
    module, name = sorted(_without_wrapper())[0]
    probe = tmp_path / "probe.py"
    probe.write_text(f"import {module} as kernels\nfrom {module} import {name}\n\n\n"
                     f"def call():\n    return {name}(), kernels.{name}()\n", encoding="utf-8")
    uses = _python_uses(probe, {(module, name)}, root=tmp_path)
    assert [u.split()[1] for u in uses] == [name, f"{module}.{name}"]
