"""The tables both backends share, written once with the column types as ``$names``.

``$key`` is a text compared byte by byte (ids, names, tags: ``COLLATE "C"`` on
PostgreSQL, SQLite's default), ``$json`` JSON (text or ``jsonb``), ``$texts`` a
list of texts (JSON text or ``text[]``) and ``$no_texts`` its empty value,
``$moment`` a point in time (ISO 8601 text or ``timestamptz``), ``$flag`` a
boolean, ``$real`` a float, ``$count`` a counter, ``$blob`` bytes, ``$compact`` the table option
of small-keyed tables (``WITHOUT ROWID`` on SQLite). Each backend's migration
steps fill them in (``ColumnTypes.render``); search has tables of its own per backend.

Every table's primary key starts with ``user_id`` and every foreign key includes
it, so the schema can be distributed by ``user_id`` (Citus; see docs/postgres.md).
The exceptions are ``api_tokens``, ``dashboard_sessions`` and the built-in authorization
server's tables (``oauth_*``): a token, a session, a client or a code is looked up by its
id or digest before its user is known, so they are keyed by that (reference tables there).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from string import Template


@dataclass(frozen=True)
class ColumnTypes:
    key: str
    text: str
    json: str
    texts: str
    no_texts: str
    moment: str
    flag: str
    real: str
    integer: str
    count: str
    compact: str
    blob: str

    def render(self, script: str) -> str:
        return Template(script).substitute(asdict(self))


def _owned(table: str, columns: tuple[str, ...], key: str, *owners: tuple[str, str]) -> str:
    """A table whose rows belong to rows of ``owners`` ((singular, table) pairs) and go with them."""
    lines = ["user_id $key NOT NULL", *columns, f"PRIMARY KEY (user_id, {key})"]
    lines += [f"FOREIGN KEY (user_id, {o}_id) REFERENCES {t} (user_id, id) ON DELETE CASCADE" for o, t in owners]
    return f"CREATE TABLE {table} (\n" + ",\n".join("    " + line for line in lines) + "\n)$compact;"


def _tags(owner: str, table: str) -> str:
    """The tags of the rows of ``table`` (``owner``: the singular its columns are named by), one row each."""
    columns = (f"{owner}_id $key NOT NULL", "tag $key NOT NULL")
    return _owned(f"{owner}_tags", columns, f"{owner}_id, tag", (owner, table)) + (
        f"\nCREATE INDEX {owner}_tags_tag ON {owner}_tags (user_id, tag);"
    )


def _history(owner: str, table: str) -> str:
    """The earlier versions of the rows of ``table``, one row per change."""
    columns = (f"{owner}_id $key NOT NULL", "version $integer NOT NULL", "action $text NOT NULL",
               "previous $json NOT NULL", "reason $text", "at $moment NOT NULL")  # fmt: skip
    return _owned(f"{owner}_history", columns, f"{owner}_id, version", (owner, table))


INITIAL = (
    """
CREATE TABLE memories (
    user_id $key NOT NULL,
    id $key NOT NULL,
    content $text NOT NULL,
    title $text,
    type $key NOT NULL,
    weight $real NOT NULL,
    trust $real NOT NULL,
    tags $texts NOT NULL DEFAULT $no_texts,
    refs $texts NOT NULL DEFAULT $no_texts,
    context $json NOT NULL DEFAULT '{}',
    location $json,
    template_id $key,
    template_version $text,
    structured_content $json,
    template_compliance $flag,
    template_validation_errors $json NOT NULL DEFAULT '[]',
    created_at $moment NOT NULL,
    updated_at $moment NOT NULL,
    occurred_at $moment NOT NULL,
    version $integer NOT NULL DEFAULT 1,
    deleted_at $moment,
    access_count $count NOT NULL DEFAULT 0,
    last_accessed_at $moment,
    PRIMARY KEY (user_id, id)
);
CREATE INDEX memories_created ON memories (user_id, created_at);
CREATE INDEX memories_updated ON memories (user_id, updated_at);
CREATE INDEX memories_occurred ON memories (user_id, occurred_at);
CREATE INDEX memories_type ON memories (user_id, type);
CREATE INDEX memories_template ON memories (user_id, template_id);

"""
    + _tags("memory", "memories")
    + """

"""
    + _history("memory", "memories")
    + """

CREATE TABLE preferences (
    user_id $key NOT NULL,
    path $key NOT NULL,
    value $json NOT NULL,
    updated_at $moment NOT NULL,
    PRIMARY KEY (user_id, path)
)$compact;

CREATE TABLE preference_history (
    user_id $key NOT NULL,
    seq $count NOT NULL,
    path $key NOT NULL,
    old_value $json,
    new_value $json NOT NULL,
    reason $text,
    at $moment NOT NULL,
    PRIMARY KEY (user_id, seq)
)$compact;
"""
)

TEMPLATES = (
    """
CREATE TABLE templates (
    user_id $key NOT NULL,
    id $key NOT NULL,
    name $text NOT NULL,
    name_key $key NOT NULL,
    version $text NOT NULL,
    parent_template_id $key,
    definition $json NOT NULL,
    created_at $moment NOT NULL,
    updated_at $moment NOT NULL,
    PRIMARY KEY (user_id, id)
);
CREATE UNIQUE INDEX templates_name ON templates (user_id, name_key);
CREATE INDEX templates_parent ON templates (user_id, parent_template_id);

"""
    + _owned(
        "template_versions",
        ("template_id $key NOT NULL", "version $text NOT NULL", "definition $json NOT NULL", "at $moment NOT NULL"),
        "template_id, version",
        ("template", "templates"),
    )
    + "\n"
)

# Numbered per user like preference_history (no sequence: the table shards by user as it is).
SUGGESTIONS = """
CREATE TABLE suggestion_events (
    user_id $key NOT NULL,
    seq $count NOT NULL,
    template_id $key NOT NULL,
    event $key NOT NULL,
    memory_id $key,
    confidence $real,
    at $moment NOT NULL,
    PRIMARY KEY (user_id, seq)
)$compact;
CREATE INDEX suggestion_events_template ON suggestion_events (user_id, template_id, event);
"""

# Looked up by id when a request arrives, before the user is known (see the module's docstring).
# Only the SHA-256 of a token's secret is kept.
API_TOKENS = """
CREATE TABLE api_tokens (
    id $key NOT NULL PRIMARY KEY,
    user_id $key NOT NULL,
    name $text,
    secret_sha256 $key NOT NULL,
    trust_level $real NOT NULL,
    created_at $moment NOT NULL,
    expires_at $moment,
    revoked_at $moment,
    last_used_at $moment
);
CREATE INDEX api_tokens_user ON api_tokens (user_id, created_at);
"""

# A relationship links two or more of one user's memories. Its members are rows of their own
# (the position keeps the order they were given in), each a foreign key to its memory: erasing
# a memory for good removes its memberships with it. ``seq`` moves on every write, so the
# in-process matrices of observation vectors catch up by reading only newer rows
# (store/sql/relationship_vectors.py). The observation's keyword terms are rows too
# (relationship_terms): one inverted index, the same SQL on both backends.
RELATIONSHIPS = (
    """
CREATE TABLE relationships (
    user_id $key NOT NULL,
    id $key NOT NULL,
    relationship_type $text NOT NULL,
    observation $text NOT NULL,
    strength $real NOT NULL,
    confidence $real NOT NULL,
    tags $texts NOT NULL DEFAULT $no_texts,
    version $integer NOT NULL DEFAULT 1,
    created_at $moment NOT NULL,
    updated_at $moment NOT NULL,
    seq $count NOT NULL,
    vector $blob,
    PRIMARY KEY (user_id, id)
);
CREATE INDEX relationships_created ON relationships (user_id, created_at);
CREATE INDEX relationships_seq ON relationships (user_id, seq);
CREATE INDEX relationships_type ON relationships (user_id, relationship_type);

"""
    + _owned(
        "relationship_members",
        ("relationship_id $key NOT NULL", "memory_id $key NOT NULL", "position $integer NOT NULL"),
        "relationship_id, memory_id",
        ("relationship", "relationships"),
        ("memory", "memories"),
    )
    + """
CREATE INDEX relationship_members_memory ON relationship_members (user_id, memory_id, relationship_id);

"""
    + _tags("relationship", "relationships")
    + """

"""
    + _owned(
        "relationship_terms",
        ("term $key NOT NULL", "relationship_id $key NOT NULL", "hits $integer NOT NULL"),
        "term, relationship_id",
        ("relationship", "relationships"),
    )
    + """
CREATE INDEX relationship_terms_relationship ON relationship_terms (user_id, relationship_id);

"""
    + _history("relationship", "relationships")
)

# A memory's normalised text hash (store/sql/fingerprint.py), so that a create finds
# its twin by index inside the transaction that writes it.
CONTENT_HASH = """
ALTER TABLE memories ADD COLUMN content_hash $key;
CREATE INDEX memories_content_hash ON memories (user_id, content_hash);
"""

# The dashboard's memories over time (store/sql/analytics.py) count a user's live memories per
# period of created_at by type and template: this index covers that count, so it reads no table row.
MEMORY_TIMELINE = """
CREATE INDEX memories_timeline ON memories (user_id, created_at, type, template_id, trust, deleted_at);
"""

# Each template's suggestion totals per user, moved with every event appended (store/sql/suggestion_totals.py),
# and the events of a memory, which those moves count again.
SUGGESTION_TOTALS = """
CREATE TABLE suggestion_totals (
    user_id $key NOT NULL,
    template_id $key NOT NULL,
    shown $count NOT NULL,
    applied $count NOT NULL,
    last_applied $moment,
    ignored $count NOT NULL,
    PRIMARY KEY (user_id, template_id)
)$compact;
CREATE INDEX suggestion_events_memory ON suggestion_events (user_id, memory_id, event, template_id);
"""

# The built-in authorization server's state (store/sql/oauth_clients.py, oauth_grants.py), shared by every
# server over the database. Secrets are kept as SHA-256 digests; every row has its expiry, and what hangs
# off a client or a grant goes with it.
OAUTH = """
CREATE TABLE oauth_clients (
    id $key NOT NULL PRIMARY KEY,
    secret_sha256 $key,
    metadata $json NOT NULL,
    address $key NOT NULL,
    created_at $moment NOT NULL,
    expires_at $moment NOT NULL,
    used_at $moment
);
CREATE INDEX oauth_clients_address ON oauth_clients (address, used_at);
CREATE INDEX oauth_clients_expiry ON oauth_clients (expires_at);

CREATE TABLE oauth_pending (
    request_sha256 $key NOT NULL PRIMARY KEY,
    client_id $key NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    params $json NOT NULL,
    expires_at $moment NOT NULL
);
CREATE INDEX oauth_pending_client ON oauth_pending (client_id);
CREATE INDEX oauth_pending_expiry ON oauth_pending (expires_at);

CREATE TABLE oauth_grants (
    id $key NOT NULL PRIMARY KEY,
    client_id $key NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    user_id $key NOT NULL,
    api_token_id $key NOT NULL,
    scopes $texts NOT NULL DEFAULT $no_texts,
    resource $text NOT NULL,
    created_at $moment NOT NULL,
    expires_at $moment NOT NULL
);
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
CREATE INDEX oauth_grants_expiry ON oauth_grants (expires_at);

CREATE TABLE oauth_codes (
    code_sha256 $key NOT NULL PRIMARY KEY,
    grant_id $key NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    code_challenge $text NOT NULL,
    redirect_uri $text NOT NULL,
    redirect_uri_explicit $flag NOT NULL,
    expires_at $moment NOT NULL,
    used_at $moment
);
CREATE INDEX oauth_codes_grant ON oauth_codes (grant_id);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);

CREATE TABLE oauth_tokens (
    refresh_sha256 $key NOT NULL PRIMARY KEY,
    access_sha256 $key NOT NULL UNIQUE,
    grant_id $key NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    scopes $texts NOT NULL DEFAULT $no_texts,
    access_expires_at $moment NOT NULL,
    expires_at $moment NOT NULL,
    rotated_at $moment
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_at);
"""

# The dashboard's logins (store/sql/dashboard_sessions.py): the browser holds a random session id, the
# table only its SHA-256. A session acts as the API token it was made from: revoking the token ends it.
DASHBOARD_SESSIONS = """
CREATE TABLE dashboard_sessions (
    id_sha256 $key NOT NULL PRIMARY KEY,
    token_id $key NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
    user_id $key NOT NULL,
    created_at $moment NOT NULL,
    expires_at $moment NOT NULL
);
CREATE INDEX dashboard_sessions_token ON dashboard_sessions (token_id, created_at);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);
"""

# A token made with another (``POST /api/tokens`` from a dashboard session or a script's token) names it:
# revoking a token revokes every token made from it, and theirs (store/sql/tokens.py).
TOKEN_PARENTS = """
ALTER TABLE api_tokens ADD COLUMN parent_id $key;
CREATE INDEX api_tokens_parent ON api_tokens (parent_id);
"""

# A client named by the URL of its metadata document (http/client_documents.py) is kept like a registered
# one, with the moment its document is to be fetched again; None for a registered client.
CLIENT_DOCUMENTS = """
ALTER TABLE oauth_clients ADD COLUMN fresh_until $moment;
"""

# Truth over time (docs/memories.md): when a memory is true in the world (from its occurred_at until it ends:
# no end, still true), what it replaced and what replaced it, and its template's identity values normalised
# (service/identity.py) to find the memory about the same thing by index. Reads keep to what is current by
# a condition on valid_until, so it is indexed; a history entry says when the values it brought became true;
# a relationship is true over a span too.
VALIDITY = """
ALTER TABLE memories ADD COLUMN valid_from $moment;
ALTER TABLE memories ADD COLUMN valid_until $moment;
ALTER TABLE memories ADD COLUMN supersedes $texts NOT NULL DEFAULT $no_texts;
ALTER TABLE memories ADD COLUMN superseded_by $key;
ALTER TABLE memories ADD COLUMN identity_key $key;
UPDATE memories SET valid_from = occurred_at;
CREATE INDEX memories_valid_until ON memories (user_id, valid_until);
CREATE INDEX memories_valid_from ON memories (user_id, valid_from);
CREATE INDEX memories_identity ON memories (user_id, template_id, identity_key);
ALTER TABLE memory_history ADD COLUMN effective_at $moment;
ALTER TABLE relationships ADD COLUMN valid_from $moment;
ALTER TABLE relationships ADD COLUMN valid_until $moment;
"""

# Shared spaces (docs/spaces.md): a space's rows are every table's rows keyed by its key in ``user_id``
# (``space_keys``: ``~`` and hex, never a user id), so a space and its members are keyed so too and stay
# on the space's node under Citus; a member's spaces are found by the member index. Who made a change in a
# shared space: the history's ``actor``, a memory's ``created_by`` (None: the owner of a personal space).
SPACES = """
CREATE TABLE spaces (
    user_id $key NOT NULL PRIMARY KEY,
    name $text NOT NULL,
    created_by $key NOT NULL,
    created_at $moment NOT NULL
)$compact;
CREATE TABLE space_members (
    user_id $key NOT NULL REFERENCES spaces (user_id) ON DELETE CASCADE,
    member $key NOT NULL,
    role $key NOT NULL,
    added_by $key NOT NULL,
    added_at $moment NOT NULL,
    PRIMARY KEY (user_id, member)
)$compact;
CREATE INDEX space_members_member ON space_members (member);
ALTER TABLE memories ADD COLUMN created_by $key;
ALTER TABLE memory_history ADD COLUMN actor $key;
ALTER TABLE relationship_history ADD COLUMN actor $key;
"""

# An admin invites; the user becomes a member only by accepting (space_members), so no one is put in a
# space, nor sees its memories among their own, without saying yes.
SPACE_INVITATIONS = """
CREATE TABLE space_invitations (
    user_id $key NOT NULL REFERENCES spaces (user_id) ON DELETE CASCADE,
    invitee $key NOT NULL,
    role $key NOT NULL,
    invited_by $key NOT NULL,
    invited_at $moment NOT NULL,
    PRIMARY KEY (user_id, invitee)
)$compact;
CREATE INDEX space_invitations_invitee ON space_invitations (invitee);
"""

# A token limited to some spaces (docs/http.md) names their keys (its user's id for their personal space);
# NULL: it reaches every space of its user.
TOKEN_SPACES = """
ALTER TABLE api_tokens ADD COLUMN spaces $texts;
"""

# Every backend's steps, in order, under these names (both report the same schema history), each
# with the script both backends run, in their column types; None where each has a step of its own.
STEPS: tuple[tuple[str, str | None], ...] = (
    ("0001_initial", INITIAL),
    ("0002_templates", TEMPLATES),
    ("0003_search", None),
    ("0004_suggestions", SUGGESTIONS),
    ("0005_fields", None),
    ("0006_covering_fields", None),
    ("0007_api_tokens", API_TOKENS),
    ("0008_relationships", RELATIONSHIPS),
    ("0009_content_hash", CONTENT_HASH),
    ("0010_memory_timeline", MEMORY_TIMELINE),
    ("0011_keyword_statistics", None),
    ("0012_keyword_documents", None),
    ("0013_suggestion_totals", SUGGESTION_TOTALS),
    ("0014_oauth", OAUTH),
    ("0015_dashboard_sessions", DASHBOARD_SESSIONS),
    ("0016_token_parents", TOKEN_PARENTS),
    ("0017_client_documents", CLIENT_DOCUMENTS),
    ("0018_validity", VALIDITY),
    ("0019_spaces", SPACES),
    ("0020_keyword_accents", None),
    ("0021_space_invitations", SPACE_INVITATIONS),
    ("0022_token_spaces", TOKEN_SPACES),
)
