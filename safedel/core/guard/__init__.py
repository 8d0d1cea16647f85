"""The per-turn bulk guard.

ledger     : the turn's append-only ledger, read and written: the take
rule       : the verdict of each take, a pure function of the ledger's lines
turn       : a turn's administration: status, approve, reject, reset, prune
stage      : the pipeline's guard step
refusal    : a refused batch: marker, signal file, report event
prompt     : the question a person answers at a terminal
signals    : the signal files a harness reads
outside    : targets outside the workspace, refused until approved
regenerable: targets made this turn or ignored by git, trashed but not counted
ignorerules: which of git's "ignored" answers the guard believes (rules older than the turn)

May import: policy, report, contract, the leaves of core/, and git/inert.
"""
