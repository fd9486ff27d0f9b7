"""Reading a template definition from plain JSON: its attributes, fields and rules, every problem
collected, then how the fields fit together."""
