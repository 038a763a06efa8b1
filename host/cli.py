"""The `fairytable` command: one subcommand per job, each in its own module.

Subcommands are imported lazily so that `fairytable replay` never loads the
serial stack and the desktop never needs Pi-only packages.
"""

import importlib
import sys

# name -> (module, one-line help). Each module has main(argv) -> exit status.
COMMANDS = {
    "run": ("host.run", "play a game on the table (the virtual table when none is configured)"),
    "doctor": ("host.doctor", "find the tiles, check every reader and LED chain"),
    "hall": ("host.hall.console", "the hall's console: every table on the MQTT broker, and "
             "commands to them"),
    "enroll": ("host.enroll", "write card, pawn and die identities into tags"),
    "journal": ("host.journal", "check a journal (`fairytable journal check PATH`)"),
    "replay": ("shared_rules.replay", "play a scenario file and print the result as JSON"),
    "sniff": ("host.link.sniff", "decode a live tile link or a capture file into readable lines"),
}


def usage():
    lines = ["usage: fairytable COMMAND [ARGS]", "", "commands:"]
    for name in sorted(COMMANDS):
        lines.append("  %-8s %s" % (name, COMMANDS[name][1]))
    return "\n".join(lines)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name = argv[0]
    if name not in COMMANDS:
        print("fairytable: unknown command %r\n\n%s" % (name, usage()), file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    return module.main(argv[1:]) or 0


if __name__ == "__main__":
    sys.exit(main())
