"""Resuming work: supervisor, analysis and review agents, the runs queue and approvals."""
