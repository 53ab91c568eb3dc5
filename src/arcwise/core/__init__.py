"""The bottom of arcwise: sentences, vocabularies, errors, interrupts, the local process pool and the registry plumbing."""
