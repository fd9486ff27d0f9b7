"""Import and export: remember's own JSON Lines (``jsonl``) and other memory servers'
formats (``peers``)."""
