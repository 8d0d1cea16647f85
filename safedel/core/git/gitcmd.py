"""Running the real git from the launcher: its global options, aliases and config."""

import os
import subprocess

from ..gnu.quoting import original_environ

# Global options that take the next argument as their value (git's handle_options).
WITH_VALUE = frozenset(
    ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env")
    + ("--attr-source",)
)
DESTRUCTIVE = frozenset(("clean", "reset", "checkout", "restore", "switch", "stash", "branch"))


def split(args):
    """(global options, subcommand or None, the subcommand's arguments)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in WITH_VALUE:
            i += 2
        elif arg.startswith("-"):
            i += 1
        else:
            return args[:i], arg, args[i + 1 :]
    return args, None, []


def base_dir(global_options):
    """The directory git works from after its -C options, for names it prints."""
    here = os.getcwd()
    for i, arg in enumerate(global_options[:-1]):
        if arg == "-C" and global_options[i + 1]:
            here = os.path.join(here, global_options[i + 1])
    return here


class Git:
    """The real git, with the user's global options kept in front of every call."""

    def __init__(self, program, global_options):
        self.program = program
        self.global_options = list(global_options)

    def run(self, *args, config=(), env=None, check=False):
        """(status, stdout bytes, stderr bytes). config pairs go last, so they win."""
        command = [self.program, *self.global_options]
        for pair in config:
            command += ["-c", pair]
        merged = original_environ()
        merged.update(env or {})
        done = subprocess.run(
            [*command, *args], env=merged, stdin=subprocess.DEVNULL, capture_output=True
        )
        if check and done.returncode:
            raise GitFailed(done.stderr.decode("utf-8", "replace").strip())
        return done.returncode, done.stdout, done.stderr

    def output(self, *args, **kwargs):
        """git's stdout as text, without the final newline, or None if it failed."""
        status, out, _ = self.run(*args, **kwargs)
        return None if status else os.fsdecode(out).rstrip("\n")

    def config_bool(self, key, default):
        value = self.output("config", "--type=bool", "--get", key)
        return default if value is None else value == "true"

    def exec(self, args):
        """Become the real git with exactly these arguments."""
        os.execve(self.program, ["git", *args], original_environ())


class GitFailed(Exception):
    pass


def split_cmdline(text):
    """Split an alias value into words as git's split_cmdline does: quotes group words,
    a backslash escapes the next character (outside single quotes)."""
    words, word, quote, escaped, started = [], [], None, False, False
    for char in text:
        if escaped:
            word.append(char)
            escaped = False
        elif char == "\\" and quote != "'":
            escaped, started = True, True
        elif quote:
            if char == quote:
                quote = None
            else:
                word.append(char)
        elif char in "'\"":
            quote, started = char, True
        elif char.isspace():
            if started or word:
                words.append("".join(word))
            word, started = [], False
        else:
            word.append(char)
    if quote or escaped:
        return None  # git: "unclosed quote": let the real git say so
    if started or word:
        words.append("".join(word))
    return words


def resolve_alias(git, subcommand, rest):
    """Expand aliases as git does until a command it knows: (globals, sub, rest), or
    None when the alias runs a shell command (`!...`), which git must run itself."""
    global_options = list(git.global_options)
    seen = set()
    while subcommand not in DESTRUCTIVE and subcommand not in seen:
        seen.add(subcommand)
        value = Git(git.program, global_options).output("config", "--get", f"alias.{subcommand}")
        if value is None:
            break
        if value.startswith("!"):
            return None
        words = split_cmdline(value)
        if not words:
            break
        more, subcommand, alias_rest = split(words)
        global_options += more
        rest = alias_rest + list(rest)
        if subcommand is None:
            break
    return global_options, subcommand, list(rest)
