"""A new design or kind of method is its module alone: every module of ``covstudy.designs`` and
``covstudy.methods`` is imported (so registered) with the package, in an order the file system
cannot change."""

import importlib
import importlib.util
import os
import pkgutil
import sys

import pytest


@pytest.mark.parametrize("name", ["covstudy.designs", "covstudy.methods"])
def test_every_module_of_the_package_is_imported_with_it(name):
    package = importlib.import_module(name)  # not covstudy.methods: the package name is also the function's
    modules = {f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__)}
    assert modules and modules <= set(sys.modules)


def test_registration_order_is_the_declared_one():
    from covstudy.designs import DESIGNS
    from covstudy.methods import KINDS

    assert list(DESIGNS)[:3] == ["binomial", "stratified", "iid"]
    assert KINDS[:3] == ("proportion", "balanced", "f1")


def test_a_new_module_registers_without_any_other_edit(tmp_path):
    """A module dropped into designs/ and methods/ registers its design and method with no other file touched."""
    import subprocess
    import uuid

    tag = f"scratch_{uuid.uuid4().hex[:8]}"
    files = {
        "covstudy.designs": (f"from .registry import register\nfrom .unpaired import Unpaired\n\n\n"
                             f"@register\nclass Scratch(Unpaired):\n    name = {tag!r}\n"),
        "covstudy.methods": (f"from .binomial import wilson\nfrom .registry import register\n\n"
                             f"register({tag!r}, family='approximate', guaranteed=False, reference='test')(wilson)\n"),
    }
    written = []
    try:
        for package, text in files.items():
            folder = importlib.util.find_spec(package).submodule_search_locations[0]
            path = f"{folder}/{tag}.py"
            with open(path, "w") as f:
                f.write(text)
            written.append(path)
        check = (f"from covstudy.designs import DESIGNS; from covstudy import methods; "
                 f"assert {tag!r} in DESIGNS and 'proportion.{tag}' in methods()")
        subprocess.run([sys.executable, "-c", check], check=True, cwd=tmp_path)
    finally:
        for path in written:
            os.remove(path)
