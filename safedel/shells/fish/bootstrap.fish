# safedel for interactive fish. In ~/.config/fish/config.fish:
#   safedel bootstrap fish | source
# It exports the shim environment and makes each command line its own turn. fish cannot
# name a function /bin/rm, so absolute-path calls reach the real tool (a documented gap).
# fish has no aliases to dodge, and `\b` is an escape here, so plain names are used.
@ENVIRONMENT@
# fish rotates SAFEDEL_TURN itself; a turn file inherited from an sh parent would win.
set --erase SAFEDEL_TURN_FILE
# Each interactive shell is a session of its own, so that undo in one terminal never
# takes back another's work. A session made by a parent shell's bootstrap (shell-*) is
# replaced; one that `safedel run --session` or the user chose is kept; and loading the
# bootstrap again in this shell keeps this shell's.
if test -z "$SAFEDEL_SESSION"
    or begin
        string match --quiet -- 'shell-*' "$SAFEDEL_SESSION"
        and test "$SAFEDEL_SESSION" != "$__safedel_session"
    end
    set --global --export SAFEDEL_SESSION @NEW_SESSION@
end
set --global __safedel_session $SAFEDEL_SESSION
set --global __safedel_turn_prefix @TURN_PREFIX@
set --query __safedel_turns; or set --global __safedel_turns 0

# SAFEDEL_TURN_START says when the turn began, so that what a command line made itself
# is not counted by the bulk guard. fish has no clock of its own, and a date(1) process
# a command line would cost milliseconds: the hook appends the turn to a private stamp
# file with a builtin redirection instead, and `@FILE` tells the shims to take that
# file's mtime while its last line is their turn. Appending, because rewriting a file
# makes ext4 flush it at close (about 0.1 ms); it starts over every thousandth turn.
set --global __safedel_stamp @TURN_STAMP@
set --global --export SAFEDEL_TURN_START @$__safedel_stamp
function __safedel_next_turn
    set --global __safedel_turns (math $__safedel_turns + 1)
    set --global --export SAFEDEL_TURN "$__safedel_turn_prefix-$__safedel_turns"
    if not test -w $__safedel_stamp
        return
    else if string match --quiet -- '*000' $__safedel_turns
        echo $SAFEDEL_TURN >$__safedel_stamp
    else
        echo $SAFEDEL_TURN >>$__safedel_stamp
    end
end

# A git prompt (fish_git_prompt, starship, tide) asks git several things on every line,
# and through PATH each call would start the git launcher's sh. So from the prompt to
# the next command line, PATH begins with a directory whose only entry is a link to the
# git that the launcher itself would run, as long as PATH still finds that one. Commands
# typed on the line get safedel's PATH back before they run, so git's protections hold
# for them; a key binding that runs git while a line is edited reaches the real git.
set --global __safedel_prompt_git @PROMPT_GIT_DIR@
set --global __safedel_real_git @REAL_GIT@
set --global __safedel_launchers @SAFEDEL_HOME@/bin

function __safedel_prompt_start --on-event fish_prompt
    test -n "$__safedel_prompt_git"; or return
    contains -- $__safedel_prompt_git $PATH; and return
    for dir in $PATH
        test "$dir" = "$__safedel_launchers"; and continue
        if test -f "$dir/git" -a -x "$dir/git"
            test "$dir/git" = "$__safedel_real_git"
            and set --global --export PATH $__safedel_prompt_git $PATH
            return
        end
    end
end

function __safedel_prompt_end
    set --local index (contains --index -- $__safedel_prompt_git $PATH)
    and set --erase PATH[$index]
end

# Defining the handlers again replaces them, so sourcing twice still leaves one hook;
# fish keeps $status across event handlers.
function __safedel_preexec --on-event fish_preexec
    __safedel_prompt_end
    __safedel_next_turn
end

__safedel_next_turn
