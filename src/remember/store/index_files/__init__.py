"""Indexes kept in files beside a database, never its source of truth: the ranked keyword index of
either backend, and what SQLite's approximate vector index shares with it."""
