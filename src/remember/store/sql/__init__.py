"""The SQL both backends share: tables of memories, templates, preferences, suggestions, transfer.

Written once over a ``Dialect`` (parameter style, value codecs, ``IN`` lists,
savepoints, locking) and a ``Session`` (one connection for one transaction).
What really differs per backend lives beside it: the connection and its pool,
the migration steps, the filter renderer, listing strategy and search.
"""
