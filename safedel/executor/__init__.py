"""The executor behind `safedel run --capture` (and `safedel serve`): a command's output
to files, a bounded view of it for a model, a timeout, and the whole process tree ended
when the command is over.

limits   : --timeout, --max-output and --kill-grace, with their environment overrides
tree     : the subreaper, the recorded descendants, and ending them all
capture  : the run directory and its output files; pruning old runs
view     : the model-facing view of an output file, in bounded memory
process  : spawning and waiting, with the timeout and interruptions
result   : the result object, as the shipped JSON Schema describes it
environ  : the environment the interpreter was started with, before locale coercion

Only the standard library is imported on the way to a finished `true`; psutil is
loaded when there is a process tree to record or to end.
"""
