"""Spellings of `/bin/rm` that no shell function is named after (issue #29, case 9).

A bootstrapped bash or zsh has functions named `/bin/rm` and `/usr/bin/rm`, and PATH
leads a bare `rm` to the launcher. Each spelling below reaches the real rm some other
way. GAPS delete for real in a bootstrapped shell (no net there) and are trashed by the
net under `safedel run`; docs/coverage.md names each by the words given. COVERED are
caught without the net: by the functions, or by the find launcher, which runs rm's
launcher for an -exec of the real rm by any path.

Each entry: (id, script line deleting the file {f}, the shells it is valid in, the words
coverage.md's table names it by).
"""

import glob
import os
import shlex
import sys

POSIX = ("bash", "zsh", "dash")
BASH_ZSH = ("bash", "zsh")

GAPS = [
    ("double-slash", "//bin/rm {f}", POSIX, "`//bin/rm`"),
    ("dot", "/bin/./rm {f}", POSIX, "`/bin/./rm`"),
    ("dot-dot", "/usr/bin/../bin/rm {f}", POSIX, "`/usr/bin/../bin/rm`"),
    ("command-p", "command -p rm {f}", POSIX, "`command -p rm`"),
    ("env", "env /bin/rm {f}", POSIX, "`env /bin/rm`"),
    ("xargs", "echo {f} | xargs /bin/rm", POSIX, "`xargs /bin/rm`"),
    ("timeout", "timeout 5 /bin/rm {f}", POSIX, "`timeout 5 /bin/rm`"),
    ("nice", "nice /bin/rm {f}", POSIX, "`nice /bin/rm`"),
    ("nohup", "nohup /bin/rm {f} 2>/dev/null", POSIX, "`nohup /bin/rm`"),
    ("setsid", "setsid -w /bin/rm {f}", POSIX, "`setsid`"),
    ("stdbuf", "stdbuf -o0 /bin/rm {f}", POSIX, "`stdbuf`"),
    ("flock", "flock {f} /bin/rm {f}", POSIX, "`flock`"),
    ("hash-p", "hash -p /bin/rm rm; rm {f}; hash -r", ("bash",), "`hash -p /bin/rm rm`"),
    ("renamed-link", "ln -s /bin/rm zap-{f} && ./zap-{f} {f}", POSIX, "`ln -s /bin/rm zap`"),
    ("proc-root", "/proc/self/root/bin/rm {f}", POSIX, "`/proc/self/root/bin/rm`"),
]
# The dynamic loader runs a program by its path too (`ld.so /bin/rm`), where there is one.
LOADERS = sorted(glob.glob("/lib64/ld-linux-*.so.*") + glob.glob("/lib/ld-linux-*.so.*"))
if LOADERS:
    GAPS.append(("loader", LOADERS[0] + " /bin/rm {f}", POSIX, "`ld.so /bin/rm`"))

COVERED = [
    ("bin-rm", "/bin/rm {f}", BASH_ZSH),
    ("usr-bin-rm", "/usr/bin/rm {f}", BASH_ZSH),
    ("quoted", "'/bin/rm' {f}", BASH_ZSH),
    ("expanded", "r=/bin/rm; $r {f}", BASH_ZSH),
    ("time", "time /bin/rm {f} 2>/dev/null", BASH_ZSH),
    ("type-P", '"$(type -P rm)" {f}', ("bash",)),
    ("noglob", "noglob /bin/rm {f}", ("zsh",)),
    ("equals", "=rm {f}", ("zsh",)),
    ("find-exec", "find . -name {f} -exec /bin/rm {{}} +", POSIX),
    ("find-exec-double-slash", "find . -name {f} -exec //bin/rm {{}} \\;", POSIX),
    ("find-execdir-dot-dot", "find . -name {f} -execdir /usr/bin/../bin/rm {{}} \\;", POSIX),
    ("find-ok", "echo y | find . -name {f} -ok /bin/rm {{}} \\; 2>/dev/null", POSIX),
    ("find-exec-unlink", "find . -name {f} -exec /usr/bin/unlink {{}} \\;", POSIX),
]

BOOTSTRAP = {"bash": "bash", "zsh": "zsh"}


def content(spelling_id):
    return f"precious data of {spelling_id}\n".encode()


def plant(work, table, shell):
    """Write one file per spelling valid in shell; {id: file name}."""
    planted = {}
    for spelling_id, _line, shells, *_ in table:
        if shell in shells:
            name = f"victim-{spelling_id}"
            (work / name).write_bytes(content(spelling_id))
            planted[spelling_id] = name
    return planted


def script(table, shell, planted):
    """One line a spelling, each deleting its own file; the script goes on past errors."""
    lines = [line.format(f=planted[i]) for i, line, shells, *_ in table if shell in shells]
    return "\n".join(lines) + "\n"


def under_bootstrap(shell, body):
    """A `shell -c` script that loads the bootstrap as an rc file would, then runs body."""
    python = shlex.quote(sys.executable)
    return f'eval "$({python} -m safedel bootstrap {BOOTSTRAP[shell]})"\n{body}'


def coverage_text():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "docs", "coverage.md"), encoding="utf-8") as handle:
        return handle.read()
