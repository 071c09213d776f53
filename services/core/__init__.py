"""The kernel every layer stands on: clock, errors, principals, the role policy, backoff."""
