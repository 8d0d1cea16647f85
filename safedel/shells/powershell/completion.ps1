# safedel completion for PowerShell. Generated from the CLI by
# `python -m safedel.completions`; do not edit. Completes commands and options from a
# table, with no process per TAB. In $PROFILE:  . /path/to/safedel.ps1
Register-ArgumentCompleter -Native -CommandName safedel -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    # Each entry is 'text|result type|tooltip'.
    $table = @{
@TABLE@
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
