# safedel: run the user's own .zshrc from their ZDOTDIR, then keep ours for child shells.
__safedel_zdotdir=$ZDOTDIR
ZDOTDIR=${SAFEDEL_USER_ZDOTDIR:-$HOME}
[[ -r $ZDOTDIR/.zshrc ]] && builtin source "$ZDOTDIR/.zshrc"
ZDOTDIR=$__safedel_zdotdir
unset __safedel_zdotdir
