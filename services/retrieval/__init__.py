"""Governed hybrid retrieval: chunking, embedding, the Chroma index and re-verified evidence."""
