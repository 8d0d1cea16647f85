"""pip's build environments keep the Python shim in the build backend's interpreter.

pip runs a package's build backend (setuptools, hatchling…) in a subprocess inside an
isolated build environment, and entering it rewrites PYTHONPATH: pip 26.x's venv build
environment empties it, the older and the fallback ones replace it with a directory of
pip's own sitecustomize. Either way `$SAFEDEL_HOME/python` was dropped, the shim never
loaded in the backend, and its deletions in the work tree (setuptools' clean-up of
`build/bdist.*`) were real ones unless the net was on. Each build environment class
pip defines gets an `__enter__` that, after pip's own, puts the shim's directory back
in front: the shim then runs pip's sitecustomize, as it runs any it hides.
"""

import os


def shim_python_dir(engine_dir):
    """$SAFEDEL_HOME/python, found from where the engine was loaded (<home>/lib/...)."""
    home = os.path.dirname(os.path.dirname(os.path.abspath(engine_dir)))
    python = os.path.join(home, "python")
    return python if os.path.isfile(os.path.join(python, "sitecustomize.py")) else None


def patch(module, engine_dir):
    python = shim_python_dir(engine_dir)
    if python is None:
        return
    for value in list(vars(module).values()):
        if not isinstance(value, type) or value.__module__ != module.__name__:
            continue
        enter = value.__dict__.get("__enter__")
        if enter is None or getattr(enter, "_safedel_keeps_shim", False):
            continue
        value.__enter__ = _keeping_shim(enter, python)


def _keeping_shim(enter, python):
    def __enter__(self, *args, **kwargs):
        result = enter(self, *args, **kwargs)
        entries = [e for e in os.environ.get("PYTHONPATH", "").split(os.pathsep) if e]
        os.environ["PYTHONPATH"] = os.pathsep.join([python, *entries])
        return result

    __enter__._safedel_keeps_shim = True
    __enter__.__wrapped__ = enter
    return __enter__
