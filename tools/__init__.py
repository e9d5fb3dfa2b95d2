"""Developer tools (not part of the Lambda package)."""
