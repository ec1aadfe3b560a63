"""The ASGI application: routes, request limits, auth, access and decision logs.

I/O edge (HTTP). Thin: every answer comes from the library (``Classifier``) or
a pluggable endpoint; this module only reads bodies under limits, validates
them, takes the current :class:`~smista.server.state.ServiceState` once per
request (so a reload never changes the rules under a request), and writes
JSON. Bad input is always a 4xx JSON error; a bug is a JSON 500 without
details. Prompt text reaches the logs only with ``log_prompts``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from smista.config.load import format_loc
from smista.core.intent import TaskIntent
from smista.core.result import Classification
from smista.core.turnclassify import TurnResult
from smista.core.turns import Turn
from smista.server.body import (
    OFFLOAD_BYTES,
    is_json_type,
    parse_bounded,
    read_asgi_body,
    read_body,
    unsupported_media_type,
)
from smista.server.errors import ApiError, error_response
from smista.server.logs import ACCESS, DECISION, emit
from smista.server.models import BatchRequest, ClassifyRequest, Health
from smista.server.openapi import build_openapi
from smista.server.plugins import Endpoint, RequestContext, available_endpoints
from smista.server.settings import ServerSettings
from smista.server.state import ServiceState, StateHolder, load_state, reload_and_log
from smista.server.turns import request_turn
from smista.server.watch import watch_files

__all__ = ["OFFLOAD_CHARS", "create_app"]

log = logging.getLogger("smista.server")

OFFLOAD_CHARS = 64 * 1024
"""Requests with more prompt text than this (or a body over
:data:`~smista.server.body.OFFLOAD_BYTES`) are classified on a worker thread,
so that one huge request does not stall the event loop (small ones stay inline:
a thread hop costs more than classifying them)."""

_REQUEST_ID = re.compile(rb"^[A-Za-z0-9._:-]{1,64}$")
_UNAUTHORIZED = ApiError(
    401, "unauthorized", "unauthorized", headers={"WWW-Authenticate": "Bearer"}
)
_MISDIRECTED = ApiError(
    421,
    "misdirected_request",
    "this service answers requests for localhost, 127.0.0.1 and [::1] only (the Host "
    "header names another host); start it with --allow-host NAME to answer NAME too",
)


def _json(payload: object, state: ServiceState | None = None) -> Response:
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return _json_bytes(body.encode("utf-8"), state)


def _json_bytes(body: bytes, state: ServiceState | None = None) -> Response:
    headers = {"X-Smista-Rules-Sha256": state.rules.sha256} if state else None
    return Response(body, media_type="application/json", headers=headers)


_WIRE_LIMIT = 4096
_WIRE: dict[int, tuple[Classification, dict[str, object], bytes]] = {}


def _wire(result: Classification) -> tuple[dict[str, object], bytes]:
    """``result``'s wire JSON as a dict and as bytes, serialized once per result.

    The classifier hands out one shared, immutable result per outcome, so the
    answers of a service are a few hundred distinct objects (bounded here all
    the same); the entry holds its result, so an id is never reused while cached.
    """
    found = _WIRE.get(id(result))
    if found is None or found[0] is not result:
        wire = result.to_wire()
        body = json.dumps(wire, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if len(_WIRE) >= _WIRE_LIMIT:
            _WIRE.clear()
        found = _WIRE[id(result)] = (result, wire, body)
    return found[1], found[2]


FastRoute = Callable[[Scope, Receive, str], Awaitable[tuple[bytes, ServiceState]]]
"""A POST endpoint served by :class:`_Gate` itself: reads the request, returns the
JSON answer and the state it was answered from (or raises :class:`ApiError`)."""


class _Gate:
    """Outermost HTTP layer: request id, ``Host`` check, bearer check on ``/v1``, the
    JSON ``Content-Type`` of POST bodies (``json_posts``), access log.

    The hot POST endpoints (``fast``: path to handler) are answered here, in
    raw ASGI, without Starlette's router, ``Request`` and ``Response``; they
    answer exactly what their Starlette routes would (which stay, for other
    methods' 405 and for the OpenAPI document).
    """

    def __init__(
        self,
        app: ASGIApp,
        settings: ServerSettings,
        fast: dict[str, FastRoute] | None = None,
        json_posts: frozenset[str] = frozenset(),
    ) -> None:
        self.app = app
        self.token = settings.token
        self.hosts = settings.host_check()
        self.fast = fast or {}
        self.json_posts = json_posts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers = dict(scope["headers"])
        given = headers.get(b"x-request-id", b"")
        if _REQUEST_ID.match(given):
            rid_bytes = given
            rid = given.decode()
        else:
            rid = os.urandom(16).hex()
            rid_bytes = rid.encode()
        scope.setdefault("state", {})["request_id"] = rid
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid_bytes)]
            await send(message)

        try:
            path: str = scope["path"]
            post = scope["method"] == "POST"
            fast = self.fast.get(path) if post else None
            if self.hosts is not None and not self.hosts.accepts(headers.get(b"host")):
                await error_response(_MISDIRECTED)(scope, receive, send_with_id)
            elif (
                self.token is not None
                and path.startswith("/v1/")
                and not self.token.accepts(headers.get(b"authorization"))
            ):
                await error_response(_UNAUTHORIZED)(scope, receive, send_with_id)
            elif (
                post
                and path in self.json_posts
                and not is_json_type(media := headers.get(b"content-type"))
            ):
                await error_response(unsupported_media_type(media))(scope, receive, send_with_id)
            elif fast is not None:
                try:
                    body, state = await fast(scope, receive, rid)
                except ApiError as exc:
                    await error_response(exc)(scope, receive, send_with_id)
                else:
                    # the headers a Starlette Response gives, in its order
                    status = 200
                    await send(
                        {
                            "type": "http.response.start",
                            "status": 200,
                            "headers": [
                                (b"x-smista-rules-sha256", state.rules.sha256.encode()),
                                (b"content-length", str(len(body)).encode()),
                                (b"content-type", b"application/json"),
                                (b"x-request-id", rid_bytes),
                            ],
                        }
                    )
                    await send({"type": "http.response.body", "body": body})
            else:
                await self.app(scope, receive, send_with_id)
        finally:
            if ACCESS.isEnabledFor(logging.INFO):  # the record is built only to be logged
                emit(
                    ACCESS,
                    "request",
                    {
                        "event": "access",
                        "request_id": rid,
                        "method": scope["method"],
                        "path": scope["path"],
                        "status": status,
                        "duration_ms": round((time.perf_counter() - started) * 1000, 3),
                        "client": scope["client"][0] if scope.get("client") else None,
                    },
                )


class _Service:
    """The request handlers of one application instance."""

    def __init__(
        self,
        settings: ServerSettings,
        holder: StateHolder,
        endpoints: Sequence[Endpoint],
    ) -> None:
        self.settings = settings
        self.holder = holder
        self.endpoints = tuple(endpoints)
        self.openapi = _json(build_openapi(settings, self.endpoints)).body

    # -- helpers ---------------------------------------------------------------

    def _check_prompt(self, text: str, loc: str) -> None:
        limit = self.settings.max_prompt_chars
        if len(text) > limit:
            raise ApiError(
                422,
                "prompt_too_large",
                f"prompt is longer than {limit} characters",
                [(loc, f"{len(text)} characters; at most {limit} are allowed")],
            )

    def _batch_too_large(self, count: int) -> ApiError:
        limit = self.settings.max_batch
        return ApiError(422, "batch_too_large", f"batch has {count} items; at most {limit}")

    def _decision(self, rid: str, endpoint: str, fields: dict[str, object]) -> None:
        emit(DECISION, endpoint, {"event": "decision", "request_id": rid, **fields})

    def _read(self, state: ServiceState, req: ClassifyRequest, *loc: str | int) -> str | Turn:
        """The request's prompt text, or its ``messages`` read as a turn (limits checked)."""
        if req.messages is not None:
            turn = request_turn(state.classifier, req.messages, *loc)
            self._check_prompt(turn.text, format_loc((*loc, "messages")))
            return turn
        assert req.text is not None  # the model requires one of text and messages
        self._check_prompt(req.text, format_loc((*loc, "text")))
        return req.text

    def _classify_one(
        self, state: ServiceState, req: ClassifyRequest, given: str | Turn
    ) -> Classification | TurnResult:
        if isinstance(given, Turn):
            return state.classifier.classify_turn(
                given, command=req.command, contexts=req.contexts, workspace=req.workspace
            )
        return state.classifier.classify(
            given,
            command=req.command,
            contexts=req.contexts,
            workspace=req.workspace,
        )

    def _fields(
        self, req: ClassifyRequest, given: str | Turn, result: Classification | TurnResult
    ) -> dict[str, object]:
        text = given.text if isinstance(given, Turn) else given
        out: dict[str, object] = {
            **_wire_dict(result),
            "prompt_chars": len(text),
            "contexts": list(req.contexts),
        }
        del out["reason"]
        if self.settings.log_prompts:
            out["prompt"] = text
        return out

    # -- endpoints ---------------------------------------------------------------

    async def classify(self, request: Request) -> Response:
        state = self.holder.current
        body = await read_body(request, self.settings.max_body_bytes)
        return _json_bytes(await self._classify(state, body, request.state.request_id), state)

    async def classify_fast(
        self, scope: Scope, receive: Receive, rid: str
    ) -> tuple[bytes, ServiceState]:
        """:meth:`classify` in raw ASGI (served by :class:`_Gate`)."""
        state = self.holder.current
        body = await read_asgi_body(scope, receive, self.settings.max_body_bytes)
        return await self._classify(state, body, rid), state

    async def _classify(self, state: ServiceState, body: bytes, rid: str) -> bytes:
        req = await parse_bounded(
            ClassifyRequest, body, max_items=self.settings.max_items, plain=_plain_request
        )

        def answer() -> bytes:
            given = self._read(state, req)
            result = self._classify_one(state, req, given)
            if DECISION.isEnabledFor(logging.INFO):  # fields are built only to be logged
                fields = self._fields(req, given, result)
                fields["generation"] = state.generation
                self._decision(rid, "classify", fields)
            return _wire_bytes(result)

        # A turn's text is at most its body; reading a large turn is work too.
        size = len(req.text) if req.text is not None else len(body)
        if size > OFFLOAD_CHARS or len(body) > OFFLOAD_BYTES:
            return await asyncio.to_thread(answer)
        return answer()

    async def batch(self, request: Request) -> Response:
        state = self.holder.current
        body = await read_body(request, self.settings.max_body_bytes)
        return _json_bytes(await self._batch(state, body, request.state.request_id), state)

    async def batch_fast(
        self, scope: Scope, receive: Receive, rid: str
    ) -> tuple[bytes, ServiceState]:
        """:meth:`batch` in raw ASGI (served by :class:`_Gate`)."""
        state = self.holder.current
        body = await read_asgi_body(scope, receive, self.settings.max_body_bytes)
        return await self._batch(state, body, rid), state

    async def _batch(self, state: ServiceState, body: bytes, rid: str) -> bytes:
        req = await parse_bounded(
            BatchRequest,
            body,
            max_items=self.settings.max_items,
            counts={"items": (self.settings.max_batch, self._batch_too_large)},
            plain=_plain_batch,
        )
        if len(req.items) > self.settings.max_batch:
            raise self._batch_too_large(len(req.items))

        def answer() -> bytes:
            # every item is read (and held to the limits) before any is classified
            given = [self._read(state, item, "items", i) for i, item in enumerate(req.items)]
            results = [
                self._classify_one(state, item, g) for item, g in zip(req.items, given, strict=True)
            ]
            if DECISION.isEnabledFor(logging.INFO):  # fields are built only to be logged
                self._decision(
                    rid,
                    "classify_batch",
                    {
                        "count": len(results),
                        "generation": state.generation,
                        "results": [
                            self._fields(i, g, r)
                            for i, g, r in zip(req.items, given, results, strict=True)
                        ],
                    },
                )
            return b'{"results":[' + b",".join(_wire_bytes(r) for r in results) + b"]}"

        # reading, classifying, logging and encoding a large batch all run off the loop
        size = sum(len(i.text) if i.text is not None else len(body) for i in req.items)
        if len(body) > OFFLOAD_BYTES or size > OFFLOAD_CHARS:
            return await asyncio.to_thread(answer)
        return answer()

    async def rules(self, _request: Request) -> Response:
        state = self.holder.current
        return _json(state.info().model_dump(mode="json", exclude_none=True), state)

    async def healthz(self, _request: Request) -> Response:
        health = Health(status="ok", generation=self.holder.current.generation)
        return _json(health.model_dump(mode="json"))

    async def openapi_json(self, _request: Request) -> Response:
        return Response(self.openapi, media_type="application/json")

    def plugged(self, endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
        async def handler(request: Request) -> Response:
            state = self.holder.current
            body = await read_body(request, self.settings.max_body_bytes)
            req = await parse_bounded(
                endpoint.request_model, body, max_items=self.settings.max_items
            )
            for name in endpoint.prompt_fields:
                text = getattr(req, name, None)
                if isinstance(text, str):
                    self._check_prompt(text, name)
            rid = request.state.request_id
            ctx = RequestContext(
                rid, state.classifier, self.settings.log_prompts, self.settings.max_prompt_chars
            )
            handled = await endpoint.handle(state.runtimes[endpoint.name], req, ctx)
            self._decision(rid, endpoint.name, {"generation": state.generation, **handled.log})
            return _json(handled.response.model_dump(mode="json"), state)

        return handler


_PLAIN_KEYS = frozenset({"text", "command", "contexts"})
_INTENTS = {intent.value: intent for intent in TaskIntent}


def _plain_request(data: Any) -> ClassifyRequest | None:
    """The request ``data`` (parsed JSON) validates to, built without pydantic's
    validation, when it is a valid one of the plain shapes: a string ``text``,
    with an intent name or null ``command`` and a list of non-blank strings ``contexts``;
    None for anything else (validated as usual). Exactly what
    ``ClassifyRequest.model_validate_json`` gives for those (tested)."""
    if type(data) is not dict or not data.keys() <= _PLAIN_KEYS:
        return None
    if type(data.get("text")) is not str:
        return None
    fields: dict[str, Any] = {"text": data["text"]}
    if "command" in data:
        command = data["command"]
        if command is None:
            fields["command"] = None
        elif type(command) is str and command in _INTENTS:
            fields["command"] = _INTENTS[command]
        else:
            return None
    if "contexts" in data:
        contexts = data["contexts"]
        if type(contexts) is not list or not all(
            type(c) is str and c and not c.isspace() for c in contexts
        ):
            return None  # a blank name is validated (a 422), as any other bad shape
        fields["contexts"] = tuple(contexts)
    return _construct(fields)


def _constructor() -> Callable[[dict[str, Any]], ClassifyRequest]:
    """``ClassifyRequest.model_construct`` for the plain fields, without its per-field
    alias and default lookups: the defaults (all immutable) are taken once. The
    instance is what ``model_construct`` builds (the same ``__dict__`` in field order,
    fields set, extra and private), which the tests compare; a model with aliases or
    a post-init hook keeps ``model_construct`` itself."""
    fields = ClassifyRequest.model_fields
    if ClassifyRequest.__pydantic_post_init__ or any(
        f.alias is not None or f.validation_alias is not None for f in fields.values()
    ):
        return lambda given: ClassifyRequest.model_construct(**given)
    defaults = ClassifyRequest.model_construct().__dict__
    names = tuple(fields)
    new = ClassifyRequest.__new__
    set_attr = object.__setattr__

    def construct(given: dict[str, Any]) -> ClassifyRequest:
        m = new(ClassifyRequest)
        set_attr(m, "__dict__", {n: given[n] if n in given else defaults[n] for n in names})
        set_attr(m, "__pydantic_fields_set__", set(given))
        set_attr(m, "__pydantic_extra__", None)
        set_attr(m, "__pydantic_private__", None)
        return m

    return construct


_construct = _constructor()


def _plain_batch(data: Any) -> BatchRequest | None:
    """:func:`_plain_request` for a batch whose every item is a plain request."""
    if type(data) is not dict or data.keys() != {"items"} or type(data["items"]) is not list:
        return None
    items = []
    for item in data["items"]:
        built = _plain_request(item)
        if built is None:
            return None
        items.append(built)
    return BatchRequest.model_construct(items=tuple(items))


def _wire_dict(result: Classification | TurnResult) -> dict[str, object]:
    """The wire JSON of a classification, or of a turn's with a short ``turn`` object
    (for the decision log)."""
    if isinstance(result, Classification):
        return dict(_wire(result)[0])
    return _turn_wire(result)


def _wire_bytes(result: Classification | TurnResult) -> bytes:
    """The answer's wire JSON, encoded (cached for the shared classification results)."""
    if isinstance(result, Classification):
        return _wire(result)[1]
    return json.dumps(result.to_wire(), ensure_ascii=False, separators=(",", ":")).encode()


def _turn_wire(result: TurnResult) -> dict[str, object]:
    out = result.to_wire()
    turn = result.info()
    out["turn"] = {
        "format": turn.format,
        "follow_up": turn.follow_up,
        "housekeeping": turn.housekeeping,
        "stripped": turn.stripped,
    }
    return out


# -- exception handlers ------------------------------------------------------------


async def _api_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc)


_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


async def _http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    return error_response(
        ApiError(exc.status_code, code, code.replace("_", " "), headers=exc.headers)
    )


async def _internal_error(_request: Request, _exc: Exception) -> Response:
    return error_response(ApiError(500, "internal_error", "internal server error"))


# -- lifespan: SIGHUP and --watch ----------------------------------------------------


@contextlib.asynccontextmanager
async def _lifespan(settings: ServerSettings, holder: StateHolder) -> AsyncIterator[None]:
    loop = asyncio.get_running_loop()
    tasks: set[asyncio.Task[Any]] = set()

    def on_sighup() -> None:
        task = loop.create_task(asyncio.to_thread(reload_and_log, holder, "sighup"))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    sighup = (
        settings.reload_on_sighup
        and hasattr(signal, "SIGHUP")  # not on Windows: reload with --watch there
        and threading.current_thread() is threading.main_thread()
    )
    if sighup:
        loop.add_signal_handler(signal.SIGHUP, on_sighup)
    watcher = (
        loop.create_task(watch_files(holder, settings.watch_interval)) if settings.watch else None
    )
    state = holder.current
    log.info(
        "rules loaded",
        extra={
            "event": "started",
            "source": state.rules.path,
            "sha256": state.rules.sha256,
            "rule_count": len(state.classifier.config.rules),
            "watch": settings.watch,
            "auth": settings.token is not None,
            "log_prompts": settings.log_prompts,
        },
    )
    try:
        yield
    finally:
        if sighup:
            loop.remove_signal_handler(signal.SIGHUP)
        if watcher is not None:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        for task in list(tasks):
            with contextlib.suppress(Exception):
                await task


def create_app(
    settings: ServerSettings,
    *,
    endpoints: Sequence[Endpoint] | None = None,
    holder: StateHolder | None = None,
) -> Starlette:
    """The service as an ASGI app; loads (and validates) the rules now.

    ``endpoints`` defaults to every pluggable endpoint installed; raises
    :class:`~smista.core.errors.ConfigError` when the rules or config are invalid.
    """
    found = available_endpoints() if endpoints is None else tuple(endpoints)
    if holder is None:

        def commit(state: ServiceState) -> None:
            for ep in found:
                try:
                    ep.commit(state.runtimes[ep.name])
                except Exception:  # the contract says it never raises; keep serving
                    log.exception("commit failed", extra={"event": "commit_failed"})

        holder = StateHolder(
            lambda previous: load_state(
                config_path=settings.config_path,
                rules_path=settings.rules_path,
                endpoints=found,
                previous=previous,
                settle=settings.watch_settle,
            ),
            commit,
        )
    service = _Service(settings, holder, found)
    routes = [
        Route("/v1/classify", service.classify, methods=["POST"]),
        Route("/v1/classify/batch", service.batch, methods=["POST"]),
        *(Route(ep.path, service.plugged(ep), methods=["POST"]) for ep in found),
        Route("/v1/rules", service.rules, methods=["GET"]),
        Route("/healthz", service.healthz, methods=["GET"]),
        Route("/openapi.json", service.openapi_json, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            Exception: _internal_error,
        },
        lifespan=lambda _app: _lifespan(settings, holder),
    )
    app.state.holder = holder
    fast: dict[str, FastRoute] = {
        "/v1/classify": service.classify_fast,
        "/v1/classify/batch": service.batch_fast,
    }
    json_posts = frozenset(["/v1/classify", "/v1/classify/batch", *(ep.path for ep in found)])
    app.add_middleware(_Gate, settings=settings, fast=fast, json_posts=json_posts)
    return app
