"""Liar's Lies backend: pure rules engine, service layer and AWS adapters."""
