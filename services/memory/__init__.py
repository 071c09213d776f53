"""Memory Bank: memories extracted from conversations, scoped, consolidated, revised, expiring."""
