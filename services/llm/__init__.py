"""Model clients: the Gemini caller, strict parsing of answers, prompts and the model ports."""
