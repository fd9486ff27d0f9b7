"""Scale-out: several ``remember serve --http`` workers over one PostgreSQL database, as one service.

On loopback, with the workers' requests spread round-robin (``bench/spread.py``, a balancer without sticky
sessions; MCP in the stateless 2026-07-28 mode):

- **one service**: an OAuth client registered on one worker, authorized through another (consent on the
  issuer's), its code exchanged on a third and refreshed on yet another, its access used on every one; a
  dashboard session opened on one worker used on the others and ended on a third, refused everywhere
  after; a memory written through one worker found by keywords through the others and gone from them
  once deleted through another (each worker's ranked keyword index catches up with the database);
- **kill -9 under load**: clients create memories through every worker; one worker is killed; every
  acknowledged write is in the database, and the only failures are requests that were on the killed
  worker when it died;
- **throughput**: 20 clients doing mixed operations through 1 and through 2 workers (the ratio);
- **restarts**: a connector's grant used and refreshed across ``restarts`` restarts of its server
  (alternately stopped and killed);
- **rate limit**: a token's allowance per worker (each worker counts its own requests).

Everything stops by itself (fixed counts, deadlines).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

from bench.postgres import embedded_postgres_url
from bench.remote import Load, Server, client, drive, figures, lost_writes, tokens_for
from bench.report import Table
from bench.spread import RoundRobin, Spread

STATELESS = "2026-07-28"
REDIRECT = "http://127.0.0.1:9/callback"  # never followed: the code is read from the redirect itself
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def start_workers(database_url: str, root: Path, count: int, **env: str) -> list[Server]:
    """``count`` workers over the database, all answering as the first one's URL (one public URL, one issuer)."""
    workers = [Server(root / f"worker{i}", database_url, **env) for i in range(count)]
    for worker in workers:
        worker.env["REMEMBER_PUBLIC_URL"] = workers[0].url
    return [worker.start() for worker in workers]


def stop_all(workers: list[Server]) -> None:
    for worker in workers:
        worker.stop()


# one service


def oauth_grant(register_at: str, authorize_at: str, exchange_at: str, api_token: str) -> dict[str, Any]:
    """A public client registered, authorized and its code exchanged, each step on the worker given."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    with httpx2.Client(timeout=30) as http:
        registered = http.post(f"{register_at}/register", json={
            "redirect_uris": [REDIRECT], "client_name": "scale-out", "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
        })  # fmt: skip
        registered.raise_for_status()
        client_id = registered.json()["client_id"]
        resource = f"{_public(http, register_at)}/mcp"
        page = http.get(f"{authorize_at}/authorize", follow_redirects=True, params={
            "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "code_challenge": challenge,
            "code_challenge_method": "S256", "state": "s", "resource": resource,
        })  # fmt: skip
        request = re.search(r'name="request" value="([^"]+)"', page.text)
        assert request is not None, page.text[:500]
        allowed = http.post(str(page.url).split("?")[0], data={
            "request": request.group(1), "api_token": api_token, "action": "allow"})  # fmt: skip
        code = httpx2.URL(allowed.headers["location"]).params["code"]
        exchanged = http.post(f"{exchange_at}/token", data={
            "grant_type": "authorization_code", "client_id": client_id, "code": code, "redirect_uri": REDIRECT,
            "code_verifier": verifier, "resource": resource,
        })  # fmt: skip
        exchanged.raise_for_status()
    return {**exchanged.json(), "client_id": client_id}


def refresh(at: str, grant: dict[str, Any]) -> dict[str, Any]:
    """The grant with its tokens replaced by a refresh on the worker ``at``."""
    answer = httpx2.post(f"{at}/token", timeout=30, data=_refresh_form(grant))
    answer.raise_for_status()
    return {**grant, **answer.json()}


def _refresh_form(grant: dict[str, Any]) -> dict[str, str]:
    return {"grant_type": "refresh_token", "client_id": grant["client_id"], "refresh_token": grant["refresh_token"]}


def mcp_status(at: str, token: str) -> int:
    """What a worker answers a stateless ``tools/list`` sent with ``token``."""
    envelope = {"io.modelcontextprotocol/protocolVersion": STATELESS, "io.modelcontextprotocol/clientCapabilities": {}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope}}
    headers = {
        **MCP_HEADERS, "Authorization": f"Bearer {token}", "MCP-Protocol-Version": STATELESS, "Mcp-Method": "tools/list"
    }  # fmt: skip
    return httpx2.post(f"{at}/mcp", json=body, headers=headers, timeout=60).status_code


def one_service(workers: list[Server], api_token: str) -> dict[str, Any]:
    """OAuth and dashboard sessions across workers: each check's outcome."""
    a, b, c = (w.url for w in workers[:3])
    grant = oauth_grant(register_at=b, authorize_at=c, exchange_at=b, api_token=api_token)
    checks: dict[str, Any] = {"access_on_every_worker": [mcp_status(w.url, grant["access_token"]) for w in workers]}
    renewed = refresh(c, grant)
    checks["refreshed_elsewhere"] = [mcp_status(w.url, renewed["access_token"]) for w in workers]
    checks["replaced_access_refused"] = [mcp_status(w.url, grant["access_token"]) for w in workers]
    replay = httpx2.post(f"{a}/token", timeout=30, data=_refresh_form(grant))
    checks["replay_on_another_worker"] = replay.status_code
    checks["grant_revoked_everywhere"] = [mcp_status(w.url, renewed["access_token"]) for w in workers]
    login = httpx2.post(f"{a}/api/session", json={"token": api_token}, headers={"X-Remember-Request": "1"}, timeout=30)
    session = login.json()["session"]
    seen = {"X-Remember-Session": session}
    checks["session_on_every_worker"] = [httpx2.get(f"{w.url}/api/me", headers=seen).status_code for w in workers]
    httpx2.delete(f"{c}/api/session", headers={**seen, "X-Remember-Request": "1"}, timeout=30)
    checks["session_ended_everywhere"] = [httpx2.get(f"{w.url}/api/me", headers=seen).status_code for w in workers]
    return checks


async def keywords_across(workers: list[Server], token: str, word: str) -> dict[str, Any]:
    """A memory written through the first worker, found by keywords through each; deleted through the
    last, found through none."""
    async with client(workers[0].url, token, STATELESS) as first:
        made = await first.call_tool("remember_create_memory", {"content": f"the {word} arrived on Tuesday"})
        memory_id = (made.structured_content or {})["id"]
    found = [await _keyword_hit(w.url, token, word, memory_id) for w in workers]
    async with client(workers[-1].url, token, STATELESS) as last:
        await last.call_tool("remember_delete_memory", {"memory_id": memory_id})
    gone = [await _keyword_hit(w.url, token, word, memory_id) for w in workers]
    return {
        "found_on": [hit for hit, _ in found],
        "found_after_delete_on": [hit for hit, _ in gone],
        "answered_by": sorted({ran or "?" for _, ran in found + gone}),
    }


async def _keyword_hit(url: str, token: str, word: str, memory_id: str) -> tuple[bool, str | None]:
    """Whether a keyword search through ``url`` finds the memory, and what answered it."""
    async with client(url, token, STATELESS) as session:
        answer = await session.call_tool(
            "remember_search_memory", {"query": word, "alpha": 0.0, "limit": 5, "explain": True}
        )
    found = answer.structured_content or {}
    ran = found.get("plan", {}).get("keyword", {}).get("ran")
    return memory_id in {hit["memory"]["id"] for hit in found.get("results", [])}, ran


# kill -9 under load


async def _writer(urls: list[str], token: str, spread: Spread, seed: int, until: float, out: dict[str, Any]) -> None:
    """Create memories through the workers until ``until``; a failure is recorded, and the client made anew
    (the SDK's client may close itself when its transport fails)."""
    import mcp.client.streamable_http as sdk
    from mcp import Client

    transport = RoundRobin(urls, spread)
    headers = {"Authorization": f"Bearer {token}"}
    count = 0
    async with httpx2.AsyncClient(headers=headers, timeout=60, transport=transport) as http:
        while time.monotonic() < until:
            try:
                async with Client(sdk.streamable_http_client(f"{urls[0]}/mcp", http_client=http), mode=STATELESS) as s:
                    while time.monotonic() < until:
                        count += 1
                        made = await s.call_tool("remember_create_memory", {"content": f"writer {seed} note {count}"})
                        if made.is_error:
                            out["errors"].append((time.monotonic(), str(made.content)[:200]))
                        else:
                            out["acknowledged"].append((made.structured_content or {})["id"])
            except Exception as exc:
                out["errors"].append((time.monotonic(), repr(exc)[:200]))


def kill_under_load(database_url: str, workers: list[Server], token: str, user: str, *, clients: int,
                    seconds: float) -> dict[str, Any]:  # fmt: skip
    """``clients`` writers through every worker for ``seconds``; the second worker killed half-way."""
    spread, out = Spread(), {"acknowledged": [], "errors": []}
    victim = workers[1]

    async def run() -> float:
        until = time.monotonic() + seconds
        writers = [_writer([w.url for w in workers], token, spread, c, until, out) for c in range(clients)]
        tasks = [asyncio.ensure_future(w) for w in writers]
        await asyncio.sleep(seconds / 2)
        killed_at = time.monotonic()
        await asyncio.to_thread(victim.kill)
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=seconds + 120)
        return killed_at

    killed_at = asyncio.run(run())
    load = Load(created={user: set(out["acknowledged"])})
    others = [f for f in spread.failures if f.worker != victim.url or f.at < killed_at]
    return {
        "acknowledged": len(out["acknowledged"]),
        "lost_writes": lost_writes(database_url, load),
        "errors": len(out["errors"]),
        "errors_before_the_kill": sum(1 for at, _ in out["errors"] if at < killed_at),
        "failures_on_the_killed_worker": len(spread.failures) - len(others),
        "failures_elsewhere": [f.error for f in others],
        "sent": spread.sent,
        "taken_out": sorted(spread.down),
    }


# throughput, restarts, rate limit


def throughput(database_url: str, root: Path, *, workers: int, clients: int, ops: int, **env: str) -> dict[str, Any]:
    tokens = tokens_for(database_url, [f"mix{workers}-{u}" for u in range(5)])  # users of their own: templates anew
    running = start_workers(database_url, root, workers, **env)
    try:
        urls = [w.url for w in running]
        load = asyncio.run(drive(urls, tokens, clients=clients, ops=ops, idle=0, mode=STATELESS))
    finally:
        stop_all(running)
    return {**figures(load), "lost_writes": lost_writes(database_url, load)}


def restarts(database_url: str, root: Path, *, count: int, **env: str) -> dict[str, Any]:
    """A connector's grant through ``count`` restarts of its server (even ones stopped, odd ones killed)."""
    api_token = tokens_for(database_url, ["connector"])["connector"]
    server = Server(root / "restarts", database_url, REMEMBER_OAUTH_SERVER="1", **env).start()
    grant = oauth_grant(server.url, server.url, server.url, api_token)
    alive = 0
    try:
        for i in range(count):
            if i % 2:
                server.kill()
            else:
                server.stop()
            server.start()
            before = mcp_status(server.url, grant["access_token"])  # the access from before the restart
            grant = refresh(server.url, grant)
            alive += before == 200 and mcp_status(server.url, grant["access_token"]) == 200
    finally:
        server.stop()
    return {"restarts": count, "grant_alive_after": alive}


def rate_limit_per_worker(workers: list[Server], token: str, *, limit: int) -> dict[str, Any]:
    """``3 * limit`` requests with one token, round-robin over the workers: how many were let through."""
    passed = 0
    for i in range(3 * limit):
        passed += mcp_status(workers[i % len(workers)].url, token) == 200
    return {"limit_per_worker": limit, "workers": len(workers), "sent": 3 * limit, "passed": passed}


def _public(http: httpx2.Client, worker: str) -> str:
    found: str = http.get(f"{worker}/.well-known/oauth-protected-resource/mcp").json()["resource"]
    return found.removesuffix("/mcp")


def run(quick: bool = False) -> dict[str, Any]:
    clients, ops, seconds, count = (6, 40, 8.0, 3) if quick else (20, 200, 30.0, 20)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, embedded_postgres_url(Path(tmp) / "pg") as url:
        root = Path(tmp)
        for n in (1, 2):
            results[f"workers_{n}"] = throughput(url, root / f"mix{n}", workers=n, clients=clients, ops=ops)
        tokens = tokens_for(url, ["team"])
        workers = start_workers(url, root / "three", 3, REMEMBER_OAUTH_SERVER="1")
        try:
            results["one_service"] = one_service(workers, tokens["team"])
            results["kill9"] = kill_under_load(url, workers, tokens["team"], "team", clients=clients, seconds=seconds)
        finally:
            stop_all(workers)
        results["restarts"] = restarts(url, root, count=count)
        pair = start_workers(url, root / "limited", 2, REMEMBER_HTTP_RATE_LIMIT="20")
        try:
            results["rate_limit"] = rate_limit_per_worker(pair, tokens["team"], limit=20)
        finally:
            stop_all(pair)
    one, two = results["workers_1"], results["workers_2"]
    table = Table(f"Scale-out over one PostgreSQL: {clients} clients x {ops} mixed operations, loopback",
                  ["workers", "ops/s", "errors", "lost", "p50 ms", "p95 ms"])  # fmt: skip
    for n, r in ((1, one), (2, two)):
        table.add(n, r["ops_per_s"], r["errors"], len(r["lost_writes"]), r["all"]["p50"], r["all"]["p95"])
    table.print()
    if one["ops_per_s"] and two["ops_per_s"]:
        print(f"\n2 workers / 1 worker: {two['ops_per_s'] / one['ops_per_s']:.2f}x")
    k = results["kill9"]
    print(f"kill -9 of 1 of 3 workers under {clients} writers: {k['acknowledged']} acknowledged, "
          f"{len(k['lost_writes'])} lost, {k['failures_on_the_killed_worker']} failed on the killed worker, "
          f"{len(k['failures_elsewhere'])} elsewhere")  # fmt: skip
    r = results["restarts"]
    print(f"{r['restarts']} restarts: the connector's grant worked after {r['grant_alive_after']}")
    q = results["rate_limit"]
    print(f"rate limit {q['limit_per_worker']}/min per worker, {q['workers']} workers: {q['passed']} of {q['sent']} "
          "requests of one token let through")  # fmt: skip
    print(f"one service: {results['one_service']}")
    return results
