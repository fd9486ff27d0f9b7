"""Every size bound of the template engine, in one place.

Templates and content come from users and models, so every loop, string and
recursion the engine runs is bounded by one of these numbers; docs/templates.md
lists them.
"""

from __future__ import annotations

# Template definitions
MAX_FIELDS = 200  # all fields of a template, nested ones included
MAX_NESTING = 5  # levels of object / array-of-object fields
MAX_NAME_LENGTH = 64
MAX_TEXT_ATTRIBUTE = 2_000  # description, error_message, template name...
MAX_OPTIONS = 500
MAX_OPTION_LENGTH = 200
MAX_PATTERN_LENGTH = 1_000
MAX_KEYWORDS = 200
MAX_KEYWORD_LENGTH = 200
MAX_EXAMPLES = 50  # example utterances of a template, for suggestions
MAX_EXAMPLE_LENGTH = 500
MAX_INHERITANCE_DEPTH = 32

# Content
MAX_STRING_LENGTH = 10_000  # a `string` field
MAX_TEXT_LENGTH = 200_000  # a `text` field
MAX_ARRAY_ITEMS = 10_000
MAX_JSON_DEPTH = 32  # free-form objects and arrays
MAX_JSON_NODES = 100_000
MAX_INTEGER = 2**63 - 1  # fits a 64-bit database column
MAX_DATE_TEXT = 64

# Expressions (formulas and show_if)
MAX_EXPRESSION_LENGTH = 1_000
MAX_EXPRESSION_DEPTH = 32
MAX_EXPRESSION_NUMBER = 1e15
MAX_EXPRESSION_STRING = 100_000
