"""The benchmark harness: `python -m bench` measures safedel against the anchors."""

import os
import sys


def _prefer_installed_safedel():
    """Import the safedel that pip installed, not the checkout's source directory.

    `python -m bench` puts the checkout first on sys.path, and its safedel/ is not a
    whole package: the shims directory is mapped into it only when it is installed.
    When an installed safedel exists elsewhere on the path (a plain `pip install .`),
    the checkout's entry is dropped; an editable install maps the checkout itself.
    """
    from importlib.machinery import PathFinder

    checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rest = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != checkout]
    if len(rest) != len(sys.path) and PathFinder.find_spec("safedel", rest) is not None:
        sys.path[:] = rest


_prefer_installed_safedel()
