"""What scores a transition parser's classes: the `Scorer` protocol and its implementations, one file each (`SCORERS`)."""
