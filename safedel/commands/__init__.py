"""One module per `safedel` command; cli.py only registers them. A command's helpers
sit beside it (configview.py: what `safedel config` shows and asks; list_git.py, pick.py)."""
