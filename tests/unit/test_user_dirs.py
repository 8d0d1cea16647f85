"""safedel computes platformdirs' directories itself; they must agree."""

import os

import platformdirs
import pytest

from safedel.core.contract import settings
from safedel.executor import shimhome


@pytest.mark.parametrize("xdg", [{}, {"XDG_STATE_HOME": "/x/state", "XDG_CACHE_HOME": "/x/cache"}])
def test_state_and_cache_dirs_match_platformdirs(monkeypatch, xdg):
    for name in ("XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in xdg.items():
        monkeypatch.setenv(name, value)
    assert settings.default_state_dir(os.environ) == platformdirs.user_state_dir("safedel")
    cache = platformdirs.user_cache_dir("safedel")
    assert shimhome.default_root() == os.path.join(cache, "shims")
