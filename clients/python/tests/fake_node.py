"""An in-process stand-in for a node's HTTP API that records every request and answers from a script."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

DIGEST_A = "sha256:" + "a" * 64
DIGEST_B = "sha256:" + "b" * 64
RESET = "reset"


class FakeNode:
    def __init__(self):
        self.requests = []
        self.handler = lambda request: (500, {"error": "unscripted", "message": "no answer scripted"})
        node = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                url = urlsplit(self.path)
                request = {"method": self.command, "path": url.path, "query": parse_qs(url.query),
                           "headers": dict(self.headers), "body": self.rfile.read(length).decode("utf-8")}
                node.requests.append(request)
                answer = node.handler(request)
                if answer == RESET:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                status, body = answer[0], answer[1]
                delay = answer[2] if len(answer) > 2 else 0
                if delay:
                    threading.Event().wait(delay)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

            def log_message(self, *args):  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def script(self, *answers):
        """Answers in order, the last one again once they run out."""
        calls = [0]

        def handler(request):
            answer = answers[min(calls[0], len(answers) - 1)]
            calls[0] += 1
            return answer
        self.handler = handler

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def answer(task, call, status, **extra):
    return dict({"task_id": task, "tool_call_id": call, "status": status, "input_digest": DIGEST_A,
                 "action_digest": DIGEST_B, "action_url": "/v1/actions/%s/%s" % (task, call)}, **extra)


def state(task, call, status, **extra):
    return dict({"task_id": task, "tool_call_id": call, "status": status, "tool_name": "send_email",
                 "provider": "smtp", "operation": "send_email", "attempts": [], "updated_at": "2026-01-01T00:00:00Z",
                 "action_digest": DIGEST_B}, **extra)
