"""Child processes that start with known signal dispositions, whatever the test runner
inherited: CI may run the suite with SIGINT ignored (as a background job of a script), and
a child inherits an ignored signal, which arcwise then leaves ignored."""

import signal

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def dispositions(ignored=()):
    """A `subprocess.Popen` preexec_fn: the signals in `ignored` ignored, the others at
    their defaults, as a terminal's foreground job has them."""

    def set_them():
        for signum in SIGNALS:
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)

    return set_them
