"""`python -m arcwise` and the `arcwise` command.  Signals are handled from the first
import on, so an early Ctrl-C also ends with one line and exit 130; once the command has
ended they are ignored (`arcwise.core.interrupts.ignore`), so its exit status stands."""

import sys

from arcwise.core import interrupts


def main() -> None:
    with interrupts.installed():
        try:
            try:
                from arcwise.cli.main import main as run

                run()  # a signal before the command's own handler is set lands here too
            finally:
                interrupts.ignore()  # the command has ended (a signal before: below)
        except interrupts.Interrupted as interrupt:
            print(f"arcwise: {interrupt}", file=sys.stderr)
            sys.exit(interrupt.exit_code)


if __name__ == "__main__":
    main()
