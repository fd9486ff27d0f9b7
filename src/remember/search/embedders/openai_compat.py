"""An embedder that calls an OpenAI-compatible ``/v1/embeddings`` HTTP endpoint.

OpenAI itself, Ollama (``http://localhost:11434/v1``), vLLM
(``http://localhost:8000/v1``), LM Studio and most hosted APIs speak it. Only the
standard library is used. Failures become errors of the one error tree whose
message says what to check: `StoreUnavailable` when the server cannot be
reached or is failing (retrying later may help), `ConfigError` when it answers
but the configuration is wrong (URL, key, model, dimension).
"""

from __future__ import annotations

import hashlib
import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from remember.errors import ConfigError, StoreUnavailable
from remember.search.embedders.base import empty_vectors, l2_normalise

if TYPE_CHECKING:
    from remember.search.embedders.base import Vectors

_RETRY_LATER = frozenset({408, 425, 429, 500, 502, 503, 504})


class OpenAIEmbedder:
    """Embeds through ``POST {base_url}/embeddings``; ``base_url`` usually ends in ``/v1``.

    ``dimension`` may be given; otherwise it is learnt from the first answer (reading
    the property before any `embed` sends one short request to find out). Every
    answer must then keep that dimension.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        dimension: int | None = None,
        timeout: float = 30.0,
        batch_size: int = 64,
    ) -> None:
        self._url = _embeddings_url(base_url)
        if not model.strip():
            raise ConfigError("The OpenAI-compatible embedder needs a model name (e.g. nomic-embed-text).")
        if batch_size < 1 or timeout <= 0:
            raise ConfigError("The embedder's batch size and timeout must be positive.")
        self.name = f"openai:{model}"
        self._model = model
        self._api_key = api_key
        self._dimension = dimension
        self._timeout = timeout
        self._batch_size = batch_size
        self._lock = threading.Lock()

    @property
    def identity(self) -> str:
        """Names the rows kept outside a database (``kept.py``): the model as the server names it, and the
        server (by a digest of its URL, which may hold credentials). A model changed behind the same name is
        not noticed: delete ``$REMEMBER_HOME/cache``."""
        return f"{self.name}@{hashlib.sha256(self._url.encode()).hexdigest()[:16]}"

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            return int(self.embed(["dimension probe"]).shape[1])
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        import numpy as np

        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for a single text")
        if not texts:
            return empty_vectors(self.dimension)
        batches = [
            self._embed_batch(list(texts[i : i + self._batch_size])) for i in range(0, len(texts), self._batch_size)
        ]
        return l2_normalise(np.concatenate(batches))

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed([text])[0]
        return vector

    def _embed_batch(self, texts: list[str]) -> Vectors:
        # OpenAI refuses empty strings; a blank text has no meaning to embed anyway.
        payload = {"model": self._model, "input": [t if t.strip() else " " for t in texts]}
        vectors = _parse_vectors(self._post(payload), len(texts), self._url)
        self._check_dimension(vectors.shape[1])
        return vectors

    def _check_dimension(self, seen: int) -> None:
        with self._lock:
            if self._dimension is None:
                self._dimension = seen
                return
        if seen != self._dimension:
            raise ConfigError(
                f"The embedding server at {self._url} returned {seen}-dimensional vectors for model "
                f"{self._model!r}, but {self._dimension} were expected. Check the model name and the "
                "configured dimension; after changing the model on purpose, run `remember reindex`."
            )

    def _post(self, payload: dict[str, Any]) -> Any:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(self._url, data=json.dumps(payload).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                body: bytes = response.read()
        except urllib.error.HTTPError as exc:
            raise _http_error(exc, self._url, self._model) from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError):
                raise StoreUnavailable(
                    f"The embedding server at {self._url} did not answer within {self._timeout} s "
                    "(timed out). It may be busy or still loading the model: retry, or raise the timeout."
                ) from exc
            raise StoreUnavailable(
                f"Cannot reach the embedding server at {self._url} ({reason}). Check that it is "
                "running and that the embedder base URL is right (e.g. http://localhost:11434/v1 for Ollama)."
            ) from exc
        try:
            return json.loads(body)
        except ValueError as exc:  # includes UnicodeDecodeError
            raise ConfigError(
                f"The server at {self._url} did not answer with JSON: {body[:120]!r}. Check that the "
                "embedder base URL points at an OpenAI-compatible API (it usually ends in /v1)."
            ) from exc


def _embeddings_url(base_url: str) -> str:
    parts = urllib.parse.urlsplit(base_url.strip())
    # urllib would also open file:// and ftp:// URLs; an embedder has no business there.
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"The embedder base URL must be an http(s) URL such as http://localhost:11434/v1, not {base_url!r}."
        )
    url = base_url.strip().rstrip("/")
    return url if url.endswith("/embeddings") else f"{url}/embeddings"


def _http_error(exc: urllib.error.HTTPError, url: str, model: str) -> StoreUnavailable | ConfigError:
    detail = _error_detail(exc)
    if exc.code in _RETRY_LATER:
        return StoreUnavailable(
            f"The embedding server at {url} failed with HTTP {exc.code}{detail}. Retry later, "
            "or check the server's log."
        )
    hint = {
        401: "Check the embedder API key.",
        403: "Check the embedder API key and its permissions.",
        404: f"Check that the base URL ends in /v1 and that the server has the model {model!r} "
        f"(for Ollama: `ollama pull {model}`).",
    }.get(exc.code, f"Check the embedder model name ({model!r}) and base URL.")
    return ConfigError(f"The embedding server at {url} refused the request with HTTP {exc.code}{detail}. {hint}")


def _error_detail(exc: urllib.error.HTTPError) -> str:
    """The server's own explanation, when it gave one (OpenAI: ``{"error": {"message": ...}}``)."""
    try:
        body = exc.read(2000).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        exc.close()
    try:
        error = json.loads(body).get("error")
        message = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        message = body
    text = " ".join(str(message or "").split())[:300]
    return f": {text}" if text else ""


def _parse_vectors(answer: Any, expected: int, url: str) -> Vectors:
    import numpy as np

    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != expected:
        got = f"{len(data)} embeddings" if isinstance(data, list) else "no 'data' list"
        raise ConfigError(
            f"The server at {url} answered {got} for {expected} texts: it does not look like an "
            "OpenAI-compatible embeddings API. Check the embedder base URL and model."
        )
    try:
        items = sorted(data, key=lambda item: int(item.get("index", 0)))
        vectors = np.asarray([item["embedding"] for item in items], dtype=np.float32)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise ConfigError(
            f"The server at {url} answered embeddings in an unexpected form ({exc}). Check that it "
            "speaks the OpenAI embeddings API with float vectors."
        ) from exc
    if vectors.ndim != 2 or vectors.shape[1] == 0:
        raise ConfigError(f"The server at {url} answered embeddings of inconsistent or zero length.")
    return vectors
