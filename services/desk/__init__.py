"""The review desk: what the console shows a person and the decisions a person records."""
