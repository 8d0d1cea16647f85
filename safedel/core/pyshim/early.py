"""os functions a module bound before the Python shim was installed, re-pointed.

sitecustomize runs after the `.pth` files, and a `.pth` file may import tempfile
(directly, or through certifi or importlib.resources). tempfile then holds the real
os.unlink as a default argument (`def close(self, unlink=_os.unlink)`), so a
NamedTemporaryFile in the work tree would be deleted for real. Known early binders
(tempfile, shutil) are walked once at install: module globals, and the defaults of
their functions and of their classes' methods.
"""


def rebind(module, wrappers):
    """Replace, in module, every reference to an original os function (by id, in
    wrappers) with its wrapper."""
    namespace = vars(module)
    for name, value in list(namespace.items()):
        if id(value) in wrappers:
            namespace[name] = wrappers[id(value)]
        elif isinstance(value, type) and value.__module__ == module.__name__:
            for member in vars(value).values():
                _rebind_defaults(getattr(member, "__func__", member), wrappers)
        else:
            _rebind_defaults(value, wrappers)


_FUNCTION = type(rebind)


def _rebind_defaults(function, wrappers):
    if not isinstance(function, _FUNCTION):
        return
    defaults = function.__defaults__
    if defaults and any(id(value) in wrappers for value in defaults):
        function.__defaults__ = tuple(wrappers.get(id(value), value) for value in defaults)
    keywords = function.__kwdefaults__
    if keywords and any(id(value) in wrappers for value in keywords.values()):
        function.__kwdefaults__ = {k: wrappers.get(id(v), v) for k, v in keywords.items()}
