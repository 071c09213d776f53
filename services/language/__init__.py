"""Text analysis shared by retrieval, agents and approvals: tokens, sentences, the glossary."""
