"""safedel: deletions from rm, Node and Python go to the trash, with a per-turn bulk guard."""

import os
import time

__version__ = "0.1.0"

# Whether the shell or harness that started this process had the shims on; `doctor`
# reports it, since the console entry switches them off for itself (entry.main).
caller_active = os.environ.get("SAFEDEL_ACTIVE") == "1"

# When this process loaded safedel (time.time_ns()): a `safedel run` counts what is
# born from here on as its run's (net/birth.py), so its net need not wait for the
# coarse clock to pass a later start.
loaded_ns = time.time_ns()
