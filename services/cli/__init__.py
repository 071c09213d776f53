"""The `memdesk` command line."""
