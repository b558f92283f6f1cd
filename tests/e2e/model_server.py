"""A scripted OpenAI-compatible model server on 127.0.0.1, for driving the real Hermes agent loop.

The server answers ``POST /v1/chat/completions`` (plain JSON, or server-sent events when the request
asks for ``"stream": true``) and ``GET /v1/models`` from a script instead of a model:

    server = ScriptedModel([
        tool_call("memory", {"action": "add", "target": "memory", "content": "User prefers tabs"}),
        reply("Saved."),
    ])

Each request of the main conversation takes the next step of the script. Requests that are not the
main conversation are told apart and answered from their own routes, so they never eat a main step:
- the session-title request (non-streaming, ``response_format`` named ``session_title``) gets
  ``{"title": <title>}``;
- the background memory/skill review (the agent's own system prompt, then the conversation, then a
  user message starting "Review the conversation above") takes the ``review`` steps;
- ``routes``: ``Route(when, steps)`` with ``when(request_body) -> bool``, tried first;
  ``system_contains`` / ``last_user_contains`` build the usual predicates.
A request for which no step is left gets ``fallback`` (a short text reply). A step may also be a
callable ``step(body) -> Reply | ToolCall`` (to answer from what was sent, or to be slow).

Every request is recorded (``server.requests``: path, parsed body, route name) so a test can read
the exact system prompt the agent sent. The server is bounded: it shuts itself down ``timeout``
seconds after it started, whatever the test does.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable, Union

MODEL_ID = "scripted-model"
MAIN = "main"        # the route names a Received carries
TITLE = "title"
REVIEW = "review"


# -- the script ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Reply:
    """The assistant answers with text (and the turn ends)."""

    text: str


@dataclass(frozen=True)
class ToolCall:
    """The assistant calls one tool; ``text`` is optional content sent beside the call."""

    name: str
    arguments: dict
    text: str = ""


Step = Union[Reply, ToolCall, Callable[[dict], Union[Reply, ToolCall]]]
Predicate = Callable[[dict], bool]


def reply(text: str) -> Reply:
    return Reply(text)


def tool_call(name: str, arguments: dict, text: str = "") -> ToolCall:
    return ToolCall(name, dict(arguments), text)


def memory_add(content: str, target: str = "memory") -> ToolCall:
    """The `memory` tool call that adds one entry."""
    return tool_call("memory", {"action": "add", "target": target, "content": content})


@dataclass
class Route:
    """Requests matching ``when`` take their steps from here instead of the main script; once the
    steps run out they get ``fallback`` (the server's fallback text when None)."""

    when: Predicate
    steps: list = field(default_factory=list)
    name: str = "route"
    fallback: Step | None = None


def system_prompt(body: dict) -> str:
    """The text of the request's first system message ('' when there is none)."""
    for msg in body.get("messages") or ():
        if msg.get("role") == "system":
            return message_text(msg)
    return ""


def last_user_message(body: dict) -> str:
    for msg in reversed(body.get("messages") or ()):
        if msg.get("role") == "user":
            return message_text(msg)
    return ""


def message_text(msg: dict) -> str:
    """A message's content as text (content may be a string or a list of parts)."""
    content = msg.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def is_title_request(body: dict) -> bool:
    """Hermes's session-title request (auxiliary, non-streaming, asks for JSON {"title": ...})."""
    fmt = body.get("response_format") or {}
    return (fmt.get("json_schema") or {}).get("name") == "session_title"


REVIEW_PROMPT_START = "Review the conversation above"


def is_background_review(body: dict) -> bool:
    """The background memory/skill review: the agent's own system prompt, then the conversation,
    then a user message that starts with the review prompt."""
    return last_user_message(body).startswith(REVIEW_PROMPT_START)


def system_contains(text: str) -> Predicate:
    return lambda body: text in system_prompt(body)


def last_user_contains(text: str) -> Predicate:
    return lambda body: text in last_user_message(body)


# -- what was received --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Received:
    """One request as the server got it."""

    path: str
    body: dict
    route: str  # MAIN, TITLE, REVIEW, a Route's name, or "" for anything but a chat completion

    @property
    def system_prompt(self) -> str:
        return system_prompt(self.body)

    @property
    def last_user_message(self) -> str:
        return last_user_message(self.body)

    @property
    def tool_names(self) -> list[str]:
        return [t.get("function", {}).get("name", "") for t in self.body.get("tools") or ()]


# -- the server ---------------------------------------------------------------------------------------

class ScriptedModel:
    """A threaded HTTP server answering chat completions from a script. Use as a context manager,
    or call start() and stop(). ``base_url`` is what goes into Hermes's config (ends with /v1)."""

    def __init__(self, script: Iterable[Step] = (), *, review: Iterable[Step] = (),
                 routes: Iterable[Route] = (), title: str = "Scripted session",
                 fallback: str = "Done.", timeout: float = 600.0):
        """``script``: the main conversation's steps, in order. ``review``: the background review's
        steps. ``routes``: extra routes, tried first. Title requests get ``{"title": title}``."""
        self._main = list(script)
        self._routes = [
            *routes,
            Route(is_title_request, [], TITLE, Reply(json.dumps({"title": title}))),
            Route(is_background_review, list(review), REVIEW),
        ]
        self.fallback = fallback
        self.timeout = timeout
        self.requests: list[Received] = []  # every request, in arrival order
        self.answered: list[tuple[str, Reply | ToolCall]] = []  # (route, step) per chat request
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._stopped = threading.Event()
        self._in_flight = 0
        self._last_activity = time.monotonic()

    # lifecycle
    def start(self) -> "ScriptedModel":
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        serve = threading.Thread(target=self._httpd.serve_forever, name="scripted-model", daemon=True)
        guard = threading.Thread(target=self._stop_after_timeout, name="scripted-model-timeout", daemon=True)
        serve.start()
        guard.start()
        return self

    def stop(self) -> None:
        """Stop serving (idempotent; the timeout guard may call it too)."""
        with self._lock:
            if self._httpd is None or self._stopped.is_set():
                return
            self._stopped.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _stop_after_timeout(self) -> None:
        if not self._stopped.wait(self.timeout):
            self.stop()

    def __enter__(self) -> "ScriptedModel":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # the script
    def push(self, *steps: Step) -> None:
        """Append steps to the main script (e.g. before a second session)."""
        with self._lock:
            self._main.extend(steps)

    def routed(self, route: str = MAIN) -> list[Received]:
        """The chat requests answered by one route (MAIN, TITLE, REVIEW or a Route's name), in order."""
        with self._lock:
            return [r for r in self.requests if r.route == route]

    def chat_requests(self) -> list[Received]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def snapshot(self) -> tuple:
        """Where every script stands (see restore)."""
        with self._lock:
            return list(self._main), [list(r.steps) for r in self._routes]

    def restore(self, state: tuple) -> None:
        """Rewind the scripts to a snapshot (e.g. before retrying a run that saved nothing)."""
        main, routes = state
        with self._lock:
            self._main[:] = main
            for route, steps in zip(self._routes, routes):
                route.steps[:] = steps

    def remaining(self) -> int:
        """Main-script steps not yet taken."""
        with self._lock:
            return len(self._main)

    def answer(self, path: str, body: dict) -> Reply | ToolCall:
        """Record the request and pick its step (the route's, else the main script's)."""
        with self._lock:
            route = next((r for r in self._routes if _safe(r.when, body)), None)
            name, steps = (route.name, route.steps) if route else (MAIN, self._main)
            self.requests.append(Received(path, body, name))
            if steps:
                step = steps.pop(0)
            else:
                step = (route and route.fallback) or Reply(self.fallback)
        step = step(body) if callable(step) else step
        with self._lock:
            self.answered.append((name, step))
        return step

    def begin(self) -> None:
        """A chat request arrived (done() follows once its answer is written)."""
        with self._lock:
            self._in_flight += 1

    def done(self) -> None:
        with self._lock:
            self._in_flight -= 1
            self._last_activity = time.monotonic()

    def idle_for(self) -> float:
        """Seconds since the last answer was sent (0 while a request is being answered)."""
        with self._lock:
            return 0.0 if self._in_flight else time.monotonic() - self._last_activity

    def finished_turns(self, route: str = MAIN) -> int:
        """How many text replies (ends of turns) a route has sent."""
        with self._lock:
            return sum(1 for name, step in self.answered if name == route and isinstance(step, Reply))

    def record_other(self, path: str) -> None:
        """A request that is not a chat completion (a model listing, a probe): route ''."""
        with self._lock:
            self.requests.append(Received(path, {}, ""))


def _safe(pred: Predicate, body: dict) -> bool:
    try:
        return bool(pred(body))
    except Exception:
        return False


class _QuietServer(ThreadingHTTPServer):
    """Hermes exits with keep-alive connections open: a reset from the client is not an error."""

    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


# -- the wire format ----------------------------------------------------------------------------------

_IDS = itertools.count(1)  # ids for completions and tool calls (unique per process, no randomness)


def _next_id(prefix: str) -> str:
    return f"{prefix}{next(_IDS):06d}"


def _tool_calls(step: Reply | ToolCall) -> list[dict]:
    if not isinstance(step, ToolCall):
        return []
    return [{"id": _next_id("call_"), "type": "function",
             "function": {"name": step.name, "arguments": json.dumps(step.arguments, ensure_ascii=False)}}]


def _usage() -> dict:
    return {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def completion(step: Reply | ToolCall) -> dict:
    """A non-streaming chat.completion body for one step."""
    calls = _tool_calls(step)
    message: dict[str, Any] = {"role": "assistant", "content": step.text or (None if calls else "")}
    if calls:
        message["tool_calls"] = calls
    return {"id": _next_id("chatcmpl-"), "object": "chat.completion",
            "created": int(time.time()), "model": MODEL_ID,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": _usage()}


def stream_chunks(step: Reply | ToolCall) -> list[dict]:
    """The chat.completion.chunk bodies streaming one step: role+text, tool call, finish, usage."""
    base = {"id": _next_id("chatcmpl-"), "object": "chat.completion.chunk",
            "created": int(time.time()), "model": MODEL_ID}
    calls = _tool_calls(step)
    chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": step.text or ""},
                                    "finish_reason": None}]}]
    for i, call in enumerate(calls):
        chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [{**call, "index": i}]},
                                            "finish_reason": None}]})
    chunks.append({**base, "choices": [{"index": 0, "delta": {},
                                        "finish_reason": "tool_calls" if calls else "stop"}]})
    chunks.append({**base, "choices": [], "usage": _usage()})
    return chunks


def _handler_for(server: ScriptedModel):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # keep the test output clean
            pass

        def do_GET(self) -> None:
            server.record_other(self.path)
            if self.path.rstrip("/").endswith("/models"):
                self._json(200, {"object": "list", "data": [
                    {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "tests",
                     "context_length": 128000}]})
            else:
                self._json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not self.path.rstrip("/").endswith("/chat/completions"):
                server.record_other(self.path)
                self._json(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._json(400, {"error": {"message": "body is not JSON"}})
                return
            server.begin()
            try:
                step = server.answer(self.path, body)
                if body.get("stream"):
                    self._sse(stream_chunks(step))
                else:
                    self._json(200, completion(step))
            finally:
                server.done()

        def _json(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _sse(self, chunks: list[dict]) -> None:
            data = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
            data += b"data: [DONE]\n\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
