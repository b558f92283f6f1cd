"""End-to-end tests that run the real Hermes agent loop against a scripted model (see README.md)."""
