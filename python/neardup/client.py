"""A client of ``neardup serve``: "have I seen this page?" from Python, over HTTP/JSON.

Standard library only (``urllib``), one request per call; the batch calls send NDJSON.

    >>> client = Client("http://127.0.0.1:8411")          # doctest: +SKIP
    >>> client.add("https://example.org/a", text="...")    # doctest: +SKIP
    {'id': 'https://example.org/a', 'status': 'added', 'duplicate_of': None, 'matches': []}

Every refusal raises :class:`ServiceError` with the server's status, message and the field
(and batch line) it names.
"""
from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Iterable, Mapping, Optional


class ServiceError(Exception):
    """A request the service refused: ``status`` (HTTP), ``field`` and ``line`` where it
    names them."""

    def __init__(self, status: int, message: str, field: Optional[str] = None, line: Optional[int] = None):
        super().__init__(f"{status}: {message}" + (f" (field {field})" if field else "") + (f" (line {line})" if line else ""))
        self.status, self.message, self.field, self.line = status, message, field, line


def _document(id: Optional[str], url: Optional[str], text: Optional[str], html: Optional[str],
              html_bytes: Optional[bytes], content_type: Optional[str], signature) -> dict:
    doc: dict = {}
    if id is not None:
        doc["id"] = id
    if url is not None:
        doc["url"] = url
    given = [name for name, v in (("text", text), ("html", html), ("html_bytes", html_bytes),
                                  ("signature", signature)) if v is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of text, html, html_bytes or signature (got {given or 'none'})")
    if text is not None:
        doc["text"] = text
    elif html is not None:
        doc["html"] = html
    elif html_bytes is not None:
        doc["html_base64"] = base64.b64encode(html_bytes).decode("ascii")
        if content_type is not None:
            doc["content_type"] = content_type
    else:
        doc["signature"] = [int(w) for w in signature]
    return doc


class Client:
    """A ``neardup serve`` at ``url`` (``token``: its bearer token, when it has one)."""

    def __init__(self, url: str = "http://127.0.0.1:8411", token: Optional[str] = None, timeout: float = 60.0):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _request(self, method: str, path: str, body: Optional[bytes] = None,
                 content_type: str = "application/json") -> bytes:
        headers = {"Content-Type": content_type} if body is not None else {}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.url + path, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                detail = json.loads(raw)
            except ValueError:
                detail = {"error": raw.decode("utf-8", "replace")}
            raise ServiceError(e.code, detail.get("error", ""), detail.get("field"), detail.get("line")) from None

    def _json(self, method: str, path: str, doc: Optional[Mapping] = None) -> Any:
        body = None if doc is None else json.dumps(doc).encode()
        return json.loads(self._request(method, path, body))

    def _ndjson(self, path: str, docs: Iterable[Mapping]) -> list:
        body = "".join(json.dumps(d) + "\n" for d in docs).encode()
        raw = self._request("POST", path, body, "application/x-ndjson")
        return [json.loads(line) for line in raw.decode().splitlines() if line]

    def check(self, text: Optional[str] = None, *, html: Optional[str] = None,
              html_bytes: Optional[bytes] = None, content_type: Optional[str] = None,
              signature=None, id: Optional[str] = None, url: Optional[str] = None) -> dict:
        """Whether a document is a near-duplicate of an indexed one: ``duplicate``,
        ``duplicate_of`` (the document kept for it) and every match with its similarity.
        Never adds."""
        return self._json("POST", "/v1/check", _document(id, url, text, html, html_bytes, content_type, signature))

    def add(self, id: Optional[str] = None, text: Optional[str] = None, *, url: Optional[str] = None,
            html: Optional[str] = None, html_bytes: Optional[bytes] = None,
            content_type: Optional[str] = None, signature=None, always: bool = False) -> dict:
        """Checks, then adds only if new (``always``: adds regardless), in one step; answered
        once on disk. ``status`` is ``added``, ``duplicate`` or ``already_indexed``. Without an
        id the url is the id."""
        path = "/v1/add" + ("?mode=always" if always else "")
        return self._json("POST", path, _document(id, url, text, html, html_bytes, content_type, signature))

    def check_many(self, docs: Iterable[Mapping]) -> list:
        """Many checks in one request: each doc a mapping as the API takes it
        (``{"id": …, "text": …}``); one answer per doc, in order."""
        return self._ndjson("/v1/batch/check", docs)

    def add_many(self, docs: Iterable[Mapping], always: bool = False) -> list:
        """Many adds in one request, in order, each checked against the ones before it."""
        return self._ndjson("/v1/batch/add" + ("?mode=always" if always else ""), docs)

    def get(self, id: str) -> Optional[dict]:
        """A document's stored facts (url, host, when added), or None when not indexed."""
        try:
            return self._json("GET", "/v1/docs/" + urllib.parse.quote(id, safe=""))
        except ServiceError as e:
            if e.status == 404:
                return None
            raise

    def remove(self, id: str) -> bool:
        """Removes a document; returns whether it was indexed."""
        try:
            self._json("DELETE", "/v1/docs/" + urllib.parse.quote(id, safe=""))
            return True
        except ServiceError as e:
            if e.status == 404:
                return False
            raise

    def __contains__(self, id: str) -> bool:
        return self.get(id) is not None

    def stats(self) -> dict:
        """The index's algorithm, size, log and memory."""
        return self._json("GET", "/v1/stats")
