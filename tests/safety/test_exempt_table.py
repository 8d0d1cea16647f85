"""Issue #29, "done when": exempt roots swapped, renamed and mounted over, across every
front end, lose nothing. A table of what can be done to an exempt root, each row on
a root of its own (one run holds them all, listed in SAFEDEL_EXEMPT, each fixed by
identity in the run's record), run through each front end with the net and without.

Rows come in three groups: what the command itself does; mounts, in the run's own
mount namespace (as root); and what uid 65534 does to our roots in a directory anyone
may write. Two rows change nothing the root is (left alone; renamed away and back):
their temp files must go for real. Every other row puts the user's files where the
root's name leads: they must all be kept, in place or in a trash, byte for byte.

The whole table is 45 runs. Each run takes a covering sample (sampling.py): every
group, front end and net mode at least once, and four cells more; SAFEDEL_TEST_SEED
replays a run's draw, SAFEDEL_TEST_ALL=1 runs every cell.
"""

import os
import pathlib
import shlex

import sampling

from .conftest import NOBODY, need_root
from .exemptcase import (
    cells,
    contents,
    deletion,
    gone_for_real,
    lost,
    require_net,
    require_tools,
    run,
)

# row -> (layout, what is done to it). Layouts: "plain" (the root t, the project proj
# beside it), "missing" (no root when the run starts), "parent" (the root a/t, and a
# project q/t that a/'s name may come to lead to).
SAME_USER = {
    "left alone": ("plain", ""),
    "renamed away and back": ("plain", "mv {b}/t {b}/t.x && mv {b}/t.x {b}/t"),
    "swapped for the project": ("plain", "mv {b}/t {b}/t.away && mv {b}/proj {b}/t"),
    "swapped for a link to it": ("plain", "mv {b}/t {b}/t.away && ln -s {b}/proj {b}/t"),
    "made anew, the project's files moved in": (
        "plain",
        "mv {b}/t {b}/t.away && mkdir {b}/t && mv {b}/proj/* {b}/t/",
    ),
    "missing at the start, the project moved in": ("missing", "mv {b}/proj {b}/t"),
    "its parent swapped": ("parent", "mv {b}/a {b}/a.away && mv {b}/q {b}/a"),
    "its parent swapped for a link": ("parent", "mv {b}/a {b}/a.away && ln -s {b}/q {b}/a"),
}
MOUNTS = {
    "left alone": ("plain", ""),
    "the project mounted over it": ("plain", "mount --bind {b}/proj {b}/t"),
    "the project mounted over its parent": ("parent", "mount --bind {b}/q {b}/a"),
    "the project mounted inside it": (
        "plain",
        "mkdir -p {b}/t/in && mount --bind {b}/proj {b}/t/in",
    ),
}
NOBODY_DOES = {
    "left alone": ("plain", ""),
    "swapped for a link to our project": (
        "plain",
        "mv {b}/t {b}/t.away && ln -s {b}/proj {b}/t",
    ),
    "its parent swapped for a link": ("parent", "mv {b}/a {b}/a.away && ln -s {b}/q {b}/a"),
}
GROUPS = {"same user": SAME_USER, "mounts": MOUNTS, "uid 65534": NOBODY_DOES}
KEPT_AS_IS = ("left alone", "renamed away and back")


def _cells():
    return [(group, front_end, net) for group in GROUPS for front_end, net in cells()]


def _layout(base, layout, name):
    """The row's root (a path to list in SAFEDEL_EXEMPT) and {content: place}."""
    written = {}

    def write(path, kind):
        path.parent.mkdir(parents=True, exist_ok=True)
        data = f"{kind} {name} {path.name} {os.urandom(8).hex()}\n".encode()
        path.write_bytes(data)
        written[data] = str(path)

    if layout == "parent":
        root, project = base / "a" / "t", base / "q" / "t"
    else:
        root, project = base / "t", base / "proj"
    if layout != "missing":
        for rel in ("scratch.o", "cc/a.o"):
            write(root / rel, "temp")
    for rel in ("keep.txt", "sub/deep.txt"):
        write(project / rel, "mine")
    return root, written


@sampling.matrix("group, front_end, net", _cells(), "exempt-table", extra=4)
def test_no_change_to_an_exempt_root_loses_anything(sandbox, request, group, front_end, net):
    require_net(net)
    require_tools(front_end)
    rows = GROUPS[group]
    if group == "uid 65534":
        need_root()
        top = pathlib.Path(request.getfixturevalue("shared")) / "table"
    else:
        top = sandbox.root / "table"
    roots, steps, written, kept = [], [], {}, {}
    for number, (row, (layout, change)) in enumerate(rows.items()):
        base = top / f"row{number}"
        root, made = _layout(base, layout, row)
        roots.append(root)
        written.update(made)
        if row in KEPT_AS_IS:
            kept.update({d: w for d, w in made.items() if d.startswith(b"temp ")})
        if change:
            steps.append(change.format(b=base))
    if group == "uid 65534":
        for here, _dirs, _files in os.walk(top):
            os.chmod(here, 0o777)  # anyone may rename what lies in our rows
        as_nobody = f"setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups sh -c "
        steps = [as_nobody + shlex.quote(step) for step in steps]
    changes = "; ".join(steps)
    script = f"{changes}; {deletion(front_end, roots, sandbox.root)}; true"
    exempt = os.pathsep.join(str(r) for r in roots)
    env = sandbox.base_env(SAFEDEL_EXEMPT=exempt)
    done = run(sandbox, script, net, env=env, mounts=group == "mounts")
    found = contents(sandbox.root)
    if top != sandbox.root / "table":
        found.update(contents(top))
    mine = {d: w for d, w in written.items() if d.startswith(b"mine ")}
    assert lost(mine, found) == {}, done.stderr.decode()[-4000:]
    assert gone_for_real(kept, found) == {}, done.stderr.decode()[-4000:]
