"""git's destructive commands made recoverable: clean through the trash, and snapshots
(refs under refs/safedel/) of the work, stashes and branches that reset, checkout,
restore, switch, stash drop/clear and branch -D would destroy."""
