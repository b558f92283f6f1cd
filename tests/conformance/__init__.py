"""Conformance: hmc measured against real Hermes releases run as oracles."""
