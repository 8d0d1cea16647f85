# safedel prelude for PowerShell (pwsh 7 and Windows PowerShell 5.1).
# In $PROFILE:  safedel bootstrap powershell | Out-String | Invoke-Expression
# `safedel run --shell powershell -- '<command>'` runs a command with it.
#
# rm, del, erase, ri, rmdir, rd and Remove-Item become aliases of one function. It
# resolves paths as Remove-Item would (wildcards, -LiteralPath, pipeline input), then
# hands the file-system ones to safedel's helper as one batch: the Recycle Bin on
# Windows, the freedesktop trash elsewhere, with the bulk guard, the markers and the
# report. If the helper is missing or breaks, nothing is deleted: it never falls back
# to a real delete. Items of other providers (env:, function:, the registry) are not
# files and go to the real Remove-Item.

if (-not (Get-Variable -Name __safedel_prelude -Scope Global -ErrorAction SilentlyContinue)) {
    Set-Variable -Name __safedel_prelude -Scope Global -Option ReadOnly -Value @VERSION@
    Set-Variable -Name __safedel_python -Scope Global -Option ReadOnly -Value @PYTHON@
@ENVIRONMENT@
    function global:__safedel_json_ascii {
        param([string] $Json)
        # Everything outside printable ASCII escaped: a hostile file name can neither end
        # a marker line nor be changed by a console code page.
        [regex]::Replace($Json, '[^\x20-\x7e]', {
                param($match)
                '\u{0:x4}' -f [int][char]$match.Value
            })
    }

    function global:__safedel_marker {
        param([string] $Kind, [hashtable] $Payload)
        $json = __safedel_json_ascii (ConvertTo-Json -InputObject $Payload -Compress -Depth 3)
        [Console]::Error.WriteLine("[safe-delete][$Kind] $json")
    }

    function global:__safedel_fail_closed {
        param([string[]] $Targets, [string] $Reason)
        foreach ($target in $Targets) {
            __safedel_marker -Kind 'SAFE_DELETE_FAIL_CLOSED' -Payload @{ path = $target; reason = $Reason }
            Write-Error -Message "safedel: '$target' was not deleted: $Reason" -TargetObject $target -Category ResourceUnavailable
        }
    }

    function global:__safedel_trash {
        param([string[]] $Targets, [bool] $Recurse)
        if (-not (Test-Path -LiteralPath $global:__safedel_python -PathType Leaf)) {
            __safedel_fail_closed -Targets $Targets -Reason "the safedel helper is missing ($global:__safedel_python)"
            return
        }
        $helper = @('-E', '-m', 'safedel.shells.trash_helper', '--runtime', 'powershell', '--json', '--stdin')
        if ($Recurse) {
            $helper += '--recurse'
        }
        # Paths travel as ASCII-only JSON on stdin, out of reach of native argument
        # quoting and console code pages.
        $request = __safedel_json_ascii (ConvertTo-Json -InputObject @($Targets) -Compress)
        $OutputEncoding = [System.Text.UTF8Encoding]::new($false)
        $answers = @($request | & $global:__safedel_python @helper)
        $status = $LASTEXITCODE
        for ($index = 0; $index -lt $Targets.Count; $index++) {
            $answer = $null
            if ($index -lt $answers.Count) {
                try {
                    $answer = ConvertFrom-Json -InputObject $answers[$index]
                } catch {
                    $answer = $null
                }
            }
            if ($null -eq $answer) {
                __safedel_fail_closed -Targets @($Targets[$index]) -Reason "the safedel helper failed (exit $status)"
            } elseif (-not $answer.ok) {
                Write-Error -Message $answer.error -TargetObject $Targets[$index] -Category WriteError
            }
        }
    }

    function global:__safedel_Remove-Item {
        [CmdletBinding(DefaultParameterSetName = 'Path', SupportsShouldProcess = $true)]
        param(
            [Parameter(ParameterSetName = 'Path', Mandatory = $true, Position = 0, ValueFromPipeline = $true, ValueFromPipelineByPropertyName = $true)]
            [string[]] $Path,
            [Parameter(ParameterSetName = 'LiteralPath', Mandatory = $true, ValueFromPipelineByPropertyName = $true)]
            [Alias('PSPath', 'LP')]
            [string[]] $LiteralPath,
            [string] $Filter,
            [string[]] $Include,
            [string[]] $Exclude,
            [switch] $Recurse,
            [switch] $Force
        )
        begin {
            $targets = [System.Collections.Generic.List[string]]::new()
        }
        process {
            $query = @{ Force = $Force.IsPresent }
            foreach ($name in 'Filter', 'Include', 'Exclude') {
                if ($PSBoundParameters.ContainsKey($name)) {
                    $query[$name] = $PSBoundParameters[$name]
                }
            }
            if ($PSCmdlet.ParameterSetName -eq 'LiteralPath') {
                $items = Microsoft.PowerShell.Management\Get-Item -LiteralPath $LiteralPath @query
            } else {
                $items = Microsoft.PowerShell.Management\Get-Item -Path $Path @query
            }
            foreach ($item in $items) {
                if ($item.PSProvider.Name -ne 'FileSystem') {
                    Microsoft.PowerShell.Management\Remove-Item -LiteralPath $item.PSPath -Recurse:$Recurse -Force:$Force
                } elseif ($PSCmdlet.ShouldProcess($item.FullName, 'Move to the trash')) {
                    if (-not $targets.Contains($item.FullName)) {
                        $targets.Add($item.FullName)
                    }
                }
            }
        }
        end {
            if ($targets.Count -gt 0) {
                __safedel_trash -Targets $targets.ToArray() -Recurse $Recurse.IsPresent
            }
        }
    }

    # Aliases win over functions and cmdlets, so each name reaches the function, even
    # where PowerShell defines it as a read-only, all-scope alias. On Linux and macOS
    # pwsh leaves rm and rmdir to the native tools, which PATH already routes to
    # safedel's launchers, so they keep their GNU syntax there.
    $__safedel_unix = ($PSVersionTable.PSEdition -eq 'Core') -and -not $IsWindows
    foreach ($__safedel_alias in 'Remove-Item', 'del', 'erase', 'ri', 'rd', 'rm', 'rmdir') {
        if ($__safedel_unix -and ($__safedel_alias -in 'rm', 'rmdir')) {
            continue
        }
        Set-Alias -Name $__safedel_alias -Value __safedel_Remove-Item -Scope Global -Option AllScope -Force
    }

    if (@ROTATE_TURNS@) {
        # An interactive session: a session of its own (undo works per terminal) unless
        # `safedel run --session` or the user chose one; a parent shell's bootstrap
        # session (shell-*) is replaced. Each prompt starts a new turn for the next line.
        if (-not $env:SAFEDEL_SESSION -or $env:SAFEDEL_SESSION -like 'shell-*') {
            $env:SAFEDEL_SESSION = @NEW_SESSION@
        }
        Set-Variable -Name __safedel_turns -Scope Global -Value 0
        Set-Variable -Name __safedel_turn_prefix -Scope Global -Value @TURN_PREFIX@
        Set-Variable -Name __safedel_user_prompt -Scope Global -Value $function:prompt
        function global:__safedel_next_turn {
            $global:__safedel_turns += 1
            $env:SAFEDEL_TURN = "$global:__safedel_turn_prefix-$global:__safedel_turns"
        }
        function global:prompt {
            __safedel_next_turn
            if ($global:__safedel_user_prompt) {
                & $global:__safedel_user_prompt
            } else {
                "PS $($executionContext.SessionState.Path.CurrentLocation)> "
            }
        }
        __safedel_next_turn
    }
}
