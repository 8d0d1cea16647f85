# safedel completion for fish. Generated from the CLI by `python -m safedel.completions`;
# do not edit. Completes commands and options from a table, with no process per TAB.
set --global __safedel_chains @CHAINS@

# The commands typed so far ("guard status"), ignoring options and their values.
function __safedel_chain
    set --local chain ''
    for word in (commandline --tokenize --cut-at-cursor)[2..-1]
        test "$word" = '--'; and break
        set --local next (string trim -- "$chain $word")
        contains -- $next $__safedel_chains; and set chain $next
    end
    echo $chain
end

function __safedel_at
    test (__safedel_chain) = "$argv[1]"
end

@TABLE@
