# safedel: zsh reads $ZDOTDIR/.zshenv even for `zsh -c` and scripts. Chain to the
# user's own file first (with their ZDOTDIR in place while it runs), then add the
# absolute-path functions that PATH cannot reach.
__safedel_zdotdir=$ZDOTDIR
ZDOTDIR=${SAFEDEL_USER_ZDOTDIR:-$HOME}
[[ -r $ZDOTDIR/.zshenv ]] && builtin source "$ZDOTDIR/.zshenv"
ZDOTDIR=$__safedel_zdotdir
unset __safedel_zdotdir
builtin source @SAFEDEL_HOME@/posix/env.sh
