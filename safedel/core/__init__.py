"""safedel's engine: stdlib only, Python 3.9+, loaded by file path inside foreign interpreters.

The one deletion pipeline (deletion.py: protected -> exempt -> guard -> trash) and the
leaves every part shares: jsonl, private, printable, outcome, resolve, mounts, lendmode,
statx and removable (could GNU have removed it?). The parts, one package each:

contract : the environment contract: settings, host, exempt ids, the run record and pointer
report   : the JSON-lines report (write, segments, read) and the marker lines
trash    : freedesktop trash dirs, .trashinfo, dirsizes, trust, orphans, real delete
policy   : protected/exempt targets, exempt roots by identity, workspace roots, kept roots
guard    : the bulk guard: ledger, turn, stage, refusal, prompt, signals, outside
gnu      : rm, rmdir, unlink and find -delete, and the launchers' start-up bundle
pyshim   : the Python shim's patches of os, shutil, pathlib and pip
git      : the git launcher's snapshots and clean

Imports are relative and never climb out of core/ (gnu/findsync's stdlib net half is
the one exception). Leaves import nothing from safedel; contract -> leaves; report ->
contract, leaves; trash -> report, leaves; policy -> contract, trash, leaves; guard ->
policy, report, contract, leaves, git/inert; deletion -> all of those; the front ends
(gnu, pyshim, git) -> deletion and below, git -> gnu, and never each other otherwise.
"""
