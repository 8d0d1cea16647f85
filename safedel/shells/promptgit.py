"""A directory whose only entry is a link to the real git, for fish's prompts.

A prompt that shows git state (fish_git_prompt, starship, tide) asks git several things
on every line; through PATH each call starts the git launcher's sh first. Between the
prompt and the next command line, the fish bootstrap puts this directory in front of
PATH, so those calls reach the git the launcher would run itself.
"""

import hashlib
import os

from ..core import private


def real_git(path_value, launchers):
    """The git the launcher in `launchers` would run: the first one on PATH that is not
    a safedel launcher (its own directory, or another shim home's bin)."""
    for directory in (path_value or "").split(os.pathsep):
        if not directory or directory == launchers:
            continue
        if os.path.isdir(os.path.join(directory, "..", "lib", "safedel_core")):
            continue
        candidate = os.path.join(directory, "git")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def link_dir(state_dir, git):
    """<state>/prompt-git/<hash of git's path>, holding `git` -> git; made once."""
    name = hashlib.sha256(os.fsencode(git)).hexdigest()[:16]
    with private.open_dir(state_dir, ["prompt-git", name]) as directory:
        try:
            current = os.readlink("git", dir_fd=directory.fd)
        except OSError:
            current = None
        if current != git:
            # Made aside and renamed over, so a shell starting meanwhile never sees a
            # half-made link.
            temporary = f"git.{os.getpid()}"
            try:
                directory.unlink(temporary)
            except FileNotFoundError:
                pass
            os.symlink(git, temporary, dir_fd=directory.fd)
            directory.replace(temporary, "git")
        return directory.path


def prompt_git(environ, home, state_dir):
    """(link directory, real git) for the fish bootstrap; ('', '') where there is none."""
    git = real_git(environ.get("PATH"), os.path.join(home, "bin"))
    if git is None or os.symlink not in os.supports_dir_fd:
        return "", ""
    try:
        return link_dir(state_dir, git), git
    except OSError:
        return "", ""  # the prompt's git then goes through the launcher, as before
