"""Accents folded in PostgreSQL's full text, where the ``english`` configuration keeps them ("résumé" and
"resume" are different words to it) and the ``unaccent`` extension may not be installed.

``ACCENTED`` and ``PLAIN`` map each Latin (and Greek) letter with diacritics to its letter without, one
character for one: the index folds a memory's text with ``translate()`` (core SQL, immutable, so its
generated ``tsvector`` column can), and a search folds its terms with ``fold`` before they reach SQL.
Letters that fold into two (ß, æ, œ) stay as they are on both sides.
"""

from __future__ import annotations

import unicodedata


def _pairs() -> tuple[str, str]:
    accented, plain = [], []
    ranges = ((0x00C0, 0x0250), (0x0386, 0x03D0), (0x1E00, 0x1F00))
    for start, end in ranges:
        for code in range(start, end):
            letter = chr(code)
            bare = "".join(c for c in unicodedata.normalize("NFKD", letter) if not unicodedata.combining(c))
            if len(bare) == 1 and bare != letter and bare.isalpha():
                accented.append(letter)
                plain.append(bare)
    return "".join(accented), "".join(plain)


ACCENTED, PLAIN = _pairs()
_TABLE = str.maketrans(ACCENTED, PLAIN)


def fold(text: str) -> str:
    """``text`` with its accented letters as ``translate(text, ACCENTED, PLAIN)`` gives them in SQL."""
    return unicodedata.normalize("NFC", text).translate(_TABLE)


def sql_literal(text: str) -> str:
    """``text`` as a SQL string literal (for the migration's generated column: no parameters there)."""
    return "'" + text.replace("'", "''") + "'"
