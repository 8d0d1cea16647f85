"""safedel: deletions from rm, Node and Python go to the trash, with a per-turn bulk guard."""

import os

__version__ = "0.1.0"

# Whether the shell or harness that started this process had the shims on; `doctor`
# reports it, since the console entry switches them off for itself (entry.main).
caller_active = os.environ.get("SAFEDEL_ACTIVE") == "1"
