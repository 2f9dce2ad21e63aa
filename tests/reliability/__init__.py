"""Reliability tests (issue 5): the services under bad input, fuzzing and faults."""
