# SPDX-License-Identifier: MIT
# fish completion for uledsctl: commands, options, LED names and triggers (asked of uledsd).

set -l uledsctl_commands list status show get set color trigger blink heartbeat pattern monitor create remove reload record

# The bus options already on the line, so that the same uledsd is asked.
function __uledsctl_busopt
    set -l words (commandline -opc)
    set -l i 2
    while test $i -le (count $words)
        switch $words[$i]
            case --bus --address
                set -l j (math $i + 1)
                echo $words[$i]
                test $j -le (count $words); and echo $words[$j]
            case '--bus=*' '--address=*'
                echo $words[$i]
        end
        set i (math $i + 1)
    end
end

function __uledsctl_leds
    uledsctl (__uledsctl_busopt) list --no-pager 2>/dev/null | string replace -r '\s.*' ''
end

# The words after the command (options and the values of those that take one left out).
function __uledsctl_args
    set -l words (commandline -opc)
    set -l seen 0
    set -l skip 0
    for w in $words[2..-1]
        if test $skip = 1
            set skip 0
        else if contains -- $w --bus --address --max --trigger --backend --duration --count --format --svg -p --property
            set skip 1
        else if string match -q -- '-*' $w
            continue
        else if test $seen = 1
            echo $w
        else
            set seen 1
        end
    end
end

function __uledsctl_nargs
    count (__uledsctl_args)
end

# uledsctl trigger NAME: one trigger a line, the selected one after "* ".
function __uledsctl_triggers
    set -l led (__uledsctl_args)[1]
    uledsctl (__uledsctl_busopt) trigger $led 2>/dev/null | string sub -s 3
end

complete -c uledsctl -f
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a list -d 'one line an LED'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a status -d 'uledsd and the LEDs in detail'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a show -d 'the D-Bus properties'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a get -d 'the brightness of an LED'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a set -d 'set the brightness'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a color -d 'colour channels of a multicolour LED'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a trigger -d 'list or select a trigger'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a blink -d 'blink with the timer trigger'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a heartbeat -d 'beat with the system load'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a pattern -d 'a brightness pattern'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a monitor -d 'a line for each change'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a create -d 'create a transient LED'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a remove -d 'remove a transient LED'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a record -d 'record transitions'
complete -c uledsctl -n "not __fish_seen_subcommand_from $uledsctl_commands" -a reload -d 're-read the configuration'

# LED names: every argument of status, show, monitor and record; the first of the others.
complete -c uledsctl -n "__fish_seen_subcommand_from status show monitor record" -a "(__uledsctl_leds)"
complete -c uledsctl -n "__fish_seen_subcommand_from get set color trigger blink heartbeat pattern remove; and test (__uledsctl_nargs) = 0" -a "(__uledsctl_leds)"
complete -c uledsctl -n "__fish_seen_subcommand_from set; and test (__uledsctl_nargs) = 1" -a "on off toggle 0 50% 100% +10% -10%"
complete -c uledsctl -n "__fish_seen_subcommand_from trigger; and test (__uledsctl_nargs) = 1" -a "(__uledsctl_triggers)"

complete -c uledsctl -s h -l help -d 'show the help'
complete -c uledsctl -l version -d 'show the version'
complete -c uledsctl -l bus -x -a "system session" -d 'the bus uledsd is on'
complete -c uledsctl -l address -x -d 'connect to this D-Bus address'
complete -c uledsctl -l json -d 'JSON output (list, status, monitor)'
complete -c uledsctl -l no-pager -d 'do not pipe long output into a pager'
complete -c uledsctl -l no-legend -d 'no header line'
complete -c uledsctl -s q -l quiet -d 'set: no line with the new value'
complete -c uledsctl -s p -l property -x -a "Name Brightness MaxBrightness Blink Color Mode Trigger AvailableTriggers Backends Transient Version LoadErrors" -d 'show: this property only'
complete -c uledsctl -l value -d 'show: the values alone'
complete -c uledsctl -l max -x -d 'create: max_brightness'
complete -c uledsctl -l trigger -x -d 'create: the trigger'
complete -c uledsctl -l backend -x -a "dbus gpio log pwm" -d 'create: a backend'
complete -c uledsctl -l keep -d 'create: the LED stays'
complete -c uledsctl -l duration -x -d 'record: seconds'
complete -c uledsctl -l count -x -d 'record: transitions'
complete -c uledsctl -l format -x -a "text csv json vcd" -d 'record: the output format'
complete -c uledsctl -l svg -r -F -d 'record: a waveform into this file'
