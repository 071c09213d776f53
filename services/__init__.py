"""memdesk service layer: everything the console and the CLI do goes through here."""
