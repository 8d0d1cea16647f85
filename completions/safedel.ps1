# safedel completion for PowerShell. Generated from the CLI by
# `python -m safedel.completions`; do not edit. Completes commands and options from a
# table, with no process per TAB. In $PROFILE:  . /path/to/safedel.ps1
Register-ArgumentCompleter -Native -CommandName safedel -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    # Each entry is 'text|result type|tooltip'.
    $table = @{
        'bootstrap' = @('--help|ParameterName|Show help and exit.')
        'doctor' = @('--help|ParameterName|Show help and exit.', '--json|ParameterName|Print a JSON list.')
        'env' = @('--help|ParameterName|Show help and exit.', '--shell|ParameterName|One of: bash, zsh, sh, fish, powershell.', '--json|ParameterName|Print a JSON object.', '--session|ParameterName|Session id.', '--turn|ParameterName|Turn id (default: a new one).', '--tool-call|ParameterName|Tool-call id.', '--threshold|ParameterName|--threshold', '--report|ParameterName|JSON-lines report file.', '--trash-dir|ParameterName|Single trash directory.', '--no-exempt|ParameterName|Trash temp-dir paths too.')
        'guard approve' = @('--help|ParameterName|Show help and exit.', '--session|ParameterName|Session id (default: $SAFEDEL_SESSION).', '--turn|ParameterName|Turn id (default: $SAFEDEL_TURN_FILE''s content, or $SAFEDEL_TURN).', '--state-dir|ParameterName|State directory (default: $SAFEDEL_STATE_DIR).', '--outside-workspace|ParameterName|Allow deletions outside the workspace instead.')
        'guard reject' = @('--help|ParameterName|Show help and exit.', '--session|ParameterName|Session id (default: $SAFEDEL_SESSION).', '--turn|ParameterName|Turn id (default: $SAFEDEL_TURN_FILE''s content, or $SAFEDEL_TURN).', '--state-dir|ParameterName|State directory (default: $SAFEDEL_STATE_DIR).')
        'guard reset' = @('--help|ParameterName|Show help and exit.', '--session|ParameterName|Session id (default: $SAFEDEL_SESSION).', '--turn|ParameterName|Forget only this turn.', '--state-dir|ParameterName|State directory (default: $SAFEDEL_STATE_DIR).', '--all|ParameterName|Forget every turn of the session (the default).')
        'guard signal' = @('--help|ParameterName|Show help and exit.', '--session|ParameterName|Session id (default: $SAFEDEL_SESSION).', '--turn|ParameterName|Turn id (default: $SAFEDEL_TURN_FILE''s content, or $SAFEDEL_TURN).', '--state-dir|ParameterName|State directory (default: $SAFEDEL_STATE_DIR).', '--tool-call|ParameterName|The tool call whose signal to take.')
        'guard status' = @('--help|ParameterName|Show help and exit.', '--session|ParameterName|Session id (default: $SAFEDEL_SESSION).', '--turn|ParameterName|Turn id (default: $SAFEDEL_TURN_FILE''s content, or $SAFEDEL_TURN).', '--state-dir|ParameterName|State directory (default: $SAFEDEL_STATE_DIR).', '--json|ParameterName|Print a JSON object.')
        'guard' = @('approve|ParameterValue|Allow bulk deletion (or, with --outside-workspace, deletions...', 'reject|ParameterValue|Refuse every further deletion the guard counts in the turn.', 'reset|ParameterValue|Forget a turn (--turn), or every turn of the session (no --turn, or...', 'signal|ParameterValue|Print the pending refusal signal as JSON and delete it; exit 1 if...', 'status|ParameterValue|Show the turn''s count, threshold and state (open, approved or...', '--help|ParameterName|Show help and exit.')
        'list' = @('--help|ParameterName|Show help and exit.', '--turn|ParameterName|Only what this turn trashed (the report).', '--session|ParameterName|Only items this session trashed.', '--since|ParameterName|Only items trashed since: 30m, 2h, 1d, 1w or 2026-11-29T14:30.', '--report|ParameterName|Report to read for --turn/--session.', '--json|ParameterName|Print a JSON array.', '--git|ParameterName|List git snapshots (reset, checkout, stash, branch).')
        'markers' = @('--help|ParameterName|Show help and exit.', '--json|ParameterName|Print {"markers", "askUser", "ask"} as JSON.')
        'report' = @('--help|ParameterName|Show help and exit.', '--json|ParameterName|Print a JSON array.')
        'restore' = @('--help|ParameterName|Show help and exit.', '--turn|ParameterName|Undo a whole turn: restore what it trashed.', '--session|ParameterName|The session of --turn.', '--last|ParameterName|Restore the item trashed last.', '--rename|ParameterName|If the path exists, restore as NAME.restored-N.', '--overwrite|ParameterName|If the path exists, trash it and restore (never a directory).', '--report|ParameterName|Report to read and append to.')
        'rm' = @('--help|ParameterName|Show help and exit.')
        'run' = @('--help|ParameterName|Show help and exit.', '--session|ParameterName|Session id (default: $SAFEDEL_SESSION).', '--turn|ParameterName|Turn id (default: a new one per run).', '--tool-call|ParameterName|Tool-call id, for the signal file.', '--threshold|ParameterName|Bulk-guard threshold (default 50).', '--report|ParameterName|JSON-lines report file.', '--trash-dir|ParameterName|Put everything in this trash dir.', '--no-exempt|ParameterName|Trash temp-dir paths too.', '--result|ParameterName|Write a JSON result here.', '--shell|ParameterName|Run COMMAND through this shell''s prelude.', '--state-dir|ParameterName|Bulk-guard state directory.', '--quiet|ParameterName|No summary line.', '-q|ParameterName|No summary line.', '--capture|ParameterName|Output to files, a bounded view, timeout, tree kill.', '--timeout|ParameterName|90s, 2m, 120000ms (default 120s; 0 = none).', '--kill-grace|ParameterName|SIGTERM to SIGKILL delay (2s).', '--max-output|ParameterName|Characters shown per stream (30000).', '--stdout-file|ParameterName|Write the raw stdout here.', '--stderr-file|ParameterName|Write the raw stderr here.', '--json|ParameterName|Print the result object instead of the output.', '--keep-background|ParameterName|Leave background processes running.', '--workspace|ParameterName|A workspace root for this session (repeatable).', '--outside-workspace|ParameterName|Deletions outside the workspace: confirm (default) or allow.')
        'shims' = @('--help|ParameterName|Show help and exit.', '--dir|ParameterName|Root to write under (default: the user cache dir).')
        'workspace add' = @('--help|ParameterName|Show help and exit.', '--scope|ParameterName|session, local (.safedel/config.local.toml), project or user.', '--session|ParameterName|Session id (default: $SAFEDEL_SESSION).', '--state-dir|ParameterName|State directory (default: $SAFEDEL_STATE_DIR).')
        'workspace list' = @('--help|ParameterName|Show help and exit.', '--session|ParameterName|Session id (default: $SAFEDEL_SESSION).', '--state-dir|ParameterName|State directory (default: $SAFEDEL_STATE_DIR).', '--json|ParameterName|Print a JSON object.')
        'workspace remove' = @('--help|ParameterName|Show help and exit.', '--scope|ParameterName|session, local (.safedel/config.local.toml), project or user.', '--session|ParameterName|Session id (default: $SAFEDEL_SESSION).', '--state-dir|ParameterName|State directory (default: $SAFEDEL_STATE_DIR).')
        'workspace' = @('add|ParameterValue|Add DIRECTORY to the workspace in SCOPE (stored as a real path).', 'list|ParameterValue|Show each workspace root with its scope and where it comes from.', 'remove|ParameterValue|Remove DIRECTORY from the workspace in SCOPE.', '--help|ParameterName|Show help and exit.')
        '' = @('bootstrap|ParameterValue|Print the script that puts safedel into an interactive shell (one...', 'doctor|ParameterValue|Check the shims, the trash and the state directory on this machine.', 'env|ParameterValue|Print the shim environment (only what changes) for SHELL or as JSON.', 'guard|ParameterValue|The per-turn bulk guard: status, approve, reject, reset, signal.', 'list|ParameterValue|List the items in every trash dir safedel can see, including other...', 'markers|ParameterValue|Read marker lines the way a harness should, and say whether to ask...', 'report|ParameterValue|Summarize a report: per turn, the items trashed, refused and restored.', 'restore|ParameterValue|Move trashed items back where they came from (by rename only, never...', 'rm|ParameterValue|Remove files like GNU rm, but move them to the trash (rm''s options:...', 'run|ParameterValue|Run COMMAND so that every deletion it makes goes to the trash.', 'shims|ParameterValue|Materialise the shims (bin/, python/, node/, hooks) and print their...', 'workspace|ParameterValue|Workspace roots: list them, add a folder, remove one.', '--help|ParameterName|Show help and exit.')
    }
    $chain = ''
    foreach ($element in @($commandAst.CommandElements | Select-Object -Skip 1)) {
        if ($element.Extent.EndOffset -ge $cursorPosition) {
            break
        }
        $next = "$chain $element".Trim()
        if ($table.ContainsKey($next)) {
            $chain = $next
        }
    }
    foreach ($entry in $table[$chain]) {
        $text, $kind, $tip = $entry -split '\|', 3
        if ($text -like "$wordToComplete*") {
            [System.Management.Automation.CompletionResult]::new($text, $text, $kind, $tip)
        }
    }
}
