"""safedel: deletions from rm, Node and Python go to the trash, with a per-turn bulk guard."""

__version__ = "0.1.0"
