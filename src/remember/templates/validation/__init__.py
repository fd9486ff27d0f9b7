"""Validating content against a resolved template: the compiled fields (``compiled``), one run
(``run``), coercion and patterns."""
