"""Authoritative records in SQL: tasks, knowledge, audit, directory, accounts, import, retention."""
