"""The per-turn bulk guard.

ledger     : the turn's append-only ledger, read and written: the take
rule       : the verdict of each take, a pure function of the ledger's lines
keeperview : under a run, the verdict asked of the run's keeper, not read from the file
keeperpost : the run keeper's publication, found (the outermost `sdkeep`) and read
turn       : a turn's administration: status, approve, reject, reset, prune
stage      : the pipeline's guard step
refusal    : a refused batch: marker, signal file, report event
remedy     : what a refusal tells its reader to do: a model to ask, a person a command
prompt     : the question a person answers at a terminal
signals    : the signal files a harness reads
outside    : targets outside the workspace, refused until approved
regenerable: targets made this turn, ignored by git or made by the build: trashed, not counted
buildoutput: what the build made, by content and by birth after the tree's configure step
ignorerules: which of git's "ignored" answers the guard believes (rules older than the turn)

May import: policy, report, contract, the leaves of core/, and git/inert.
"""
