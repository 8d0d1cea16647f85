"""safedel's Python shim, found through PYTHONPATH ($SAFEDEL_HOME/python).

With SAFEDEL_ACTIVE=1 it loads safedel's engine by file path from this shim home under a
private module name, so nothing is added to sys.path and the interpreter's own packages
stay as they are, and routes os, shutil and pathlib deletions to the trash. Active or
not, it then runs the sitecustomize it hides (Debian ships one), once.

It never raises at start-up: if the shim cannot load, one warning goes to stderr and
deletion is left as it was. A broken Python would be worse than an unprotected one.
"""

import os
import sys

ENGINE = "_safedel_core"
_HERE = os.path.dirname(os.path.abspath(__file__))


def _machinery():
    # The frozen copies the interpreter already runs: importing importlib.util instead
    # costs every start-up milliseconds (50 ms on 3.9, which pulls in typing).
    modules = sys.modules
    if "_frozen_importlib" in modules and "_frozen_importlib_external" in modules:
        return modules["_frozen_importlib"], modules["_frozen_importlib_external"]
    from importlib import _bootstrap, _bootstrap_external

    return _bootstrap, _bootstrap_external


def _install_shim():
    if ENGINE in sys.modules:  # a second safedel home further down PYTHONPATH
        return
    bootstrap, external = _machinery()
    package_dir = os.path.join(os.path.dirname(_HERE), "lib", "safedel_core")
    spec = external.spec_from_file_location(
        ENGINE,
        os.path.join(package_dir, "__init__.py"),
        submodule_search_locations=[package_dir],
    )
    if spec is None:
        raise ImportError(f"no safedel engine in {package_dir}")
    package = bootstrap.module_from_spec(spec)
    sys.modules[ENGINE] = package
    try:
        spec.loader.exec_module(package)
        __import__(ENGINE + ".pyshim").pyshim.install()
    except BaseException:
        for name in [n for n in sys.modules if n == ENGINE or n.startswith(ENGINE + ".")]:
            del sys.modules[name]
        raise


def _hidden_sitecustomize():
    """The spec of the sitecustomize that would have run without this directory."""
    _, external = _machinery()
    later = []
    for entry in sys.path:
        if os.path.abspath(entry or os.curdir) == _HERE:
            later = []
        else:
            later.append(entry)
    spec = external.PathFinder.find_spec("sitecustomize", later)
    if spec is None or (spec.origin and os.path.dirname(spec.origin) == _HERE):
        return None
    return spec


def _run_hidden_sitecustomize():
    spec = _hidden_sitecustomize()
    if spec is None:
        return
    bootstrap, _ = _machinery()
    module = bootstrap.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    # Its own errors surface just as they would have without safedel in front of it.
    spec.loader.exec_module(module)


if os.environ.get("SAFEDEL_ACTIVE") == "1":
    try:
        _install_shim()
    except Exception as exc:
        try:
            sys.stderr.write(
                f"safedel: warning: the Python shim did not load ({exc!r}); "
                "deletions in this interpreter are not protected\n"
            )
        except (AttributeError, OSError, ValueError):
            pass
_run_hidden_sitecustomize()
