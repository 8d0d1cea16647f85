# safedel: run the user's own .zprofile from their ZDOTDIR, then keep ours for child shells.
__safedel_zdotdir=$ZDOTDIR
ZDOTDIR=${SAFEDEL_USER_ZDOTDIR:-$HOME}
[[ -r $ZDOTDIR/.zprofile ]] && builtin source "$ZDOTDIR/.zprofile"
ZDOTDIR=$__safedel_zdotdir
unset __safedel_zdotdir
