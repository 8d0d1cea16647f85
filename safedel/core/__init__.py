"""safedel's engine: stdlib only, Python 3.9+, loaded by file path inside foreign interpreters.

Modules here import each other relatively and nothing outside the standard library.
"""
