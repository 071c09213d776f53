"""Knowledge publishing: candidates, diffs, approval, versioned publication and revocation."""
