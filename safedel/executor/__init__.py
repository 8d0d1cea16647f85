"""`safedel run` and the executor behind it (and behind `safedel serve`): the shims
injected, a command's output to files, a bounded view of it for a model, a timeout, and
the whole process tree ended when the command is over.

runner    : `safedel run`'s fast path: the shim home, the environment, the run, its end
runargs   : `safedel run`'s options, parsed and checked without typer
plainspawn: a run without capture: spawn as a shell would, forward signals, reap
captured  : capture mode from start to finish: output files, the execution, the views
runstate  : the run record before the command; its events, signal and result after
approval  : the approval token, so a command cannot approve its own deletions
keeper    : the run's guard keeper: the turn's state kept from the command, and its question
keptturn  : one turn as the keeper keeps it: its ledger read, checked, and published
killedruns: at a start, the trash a killed run was filling is swept
childenv  : the environment contract the child gets (also `safedel env`, the bootstraps)
shimhome  : the shim home ($SAFEDEL_HOME) materialised from the package's own files
nodebundle: the Node preload as one file, for `node --permission`
limits    : --timeout, --max-output and --kill-grace, with their environment overrides
tree      : the subreaper, the recorded descendants, and ending them all
capture   : the run directory and its output files; pruning old runs
view      : the model-facing view of an output file, in bounded memory
process   : spawning and waiting, with the timeout and interruptions
result    : the result object, as the shipped JSON Schema describes it
environ   : the environment the interpreter was started with, before locale coercion

Only the standard library is imported on the way to a finished `true`; psutil is
loaded when there is a process tree to record or to end.
"""
