#!/usr/bin/env python3
"""The contract check: requests generated from docs/openapi.yaml against a running aiden-board.

For every operation: bodies and parameters the spec allows (Hypothesis, from the spec's own schemas), and
requests it forbids: each body field in turn given a value of the wrong type, out of its range or length, off
its pattern or enum, a required field left out; bodies that are not JSON or not an object; a body operation
that lists 415 sent as text/plain; each constrained query parameter in turn given a value its schema
forbids. It fails when the board answers a 5xx, a status the operation does not list, a body that does not
match the schema listed for that status, refuses as invalid (400, 413, 415) a request the spec allows, or
accepts (2xx) one it forbids. Phone paths go over TCP, /v1 paths over the agent's Unix socket.

`--narrow KIND` first narrows the spec in one way the board does not follow, so that a run must report
disagreements: how scripts/contract shows the check itself can fail (NARROWINGS below).

Usage: scripts/contract.py SPEC HTTP_PORT AGENT_SOCKET [--examples N] [--seed S] [--narrow KIND]
"""
import argparse
import copy
import http.client
import json
import random
import re
import socket
import sys
import urllib.parse

import jsonschema
import yaml
from hypothesis import HealthCheck, given, seed, settings, strategies as st
from hypothesis_jsonschema import from_schema


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=5):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.unix_path)


def to_json_schema(node):
    """OpenAPI 3.0 schema objects to JSON Schema: `nullable` becomes a type that admits null."""
    if isinstance(node, list):
        return [to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: to_json_schema(value) for key, value in node.items() if key not in ("nullable", "example")}
    if node.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = list(out["enum"]) + [None]
        if "$ref" in out or "allOf" in out:
            inner = {key: out.pop(key) for key in ("$ref", "allOf") if key in out}
            out["anyOf"] = [inner, {"type": "null"}]
    return out


class Contract:
    def __init__(self, spec, port, agent_socket):
        self.spec = spec
        self.port = port
        self.agent_socket = agent_socket
        self.components = {"schemas": to_json_schema(spec["components"]["schemas"])}
        self.failures = []
        self.requests = 0

    def schema(self, node):
        """A self-contained JSON Schema for `node` (refs resolve against the spec's components)."""
        node = to_json_schema(node)
        if "$ref" in node and node["$ref"].startswith("#/components/parameters/"):
            node = to_json_schema(self.spec["components"]["parameters"][node["$ref"].rsplit("/", 1)[1]])
        return {"allOf": [node], "components": self.components}

    def resolve(self, node):
        while isinstance(node, dict) and "$ref" in node:
            kind, name = node["$ref"].split("/")[-2:]
            node = self.spec["components"][kind][name]
        return node

    def flatten(self, node):
        """`node` with its refs resolved and its `allOf` members' keywords merged in (its own win): the type and
        the constraints a property has, wherever the spec wrote them."""
        node = self.resolve(node)
        merged = {}
        for member in node.get("allOf", []):
            merged.update(self.flatten(member))
        merged.update({key: value for key, value in node.items() if key != "allOf"})
        return merged

    def send(self, method, path, body=None, headers=None, raw_body=None):
        """`body` is sent as JSON; `raw_body` (bytes) as it is, for bodies that are not JSON."""
        self.requests += 1
        headers = dict(headers or {})
        data = raw_body
        if body is not None:
            data = json.dumps(body).encode()
        if data is not None:
            headers.setdefault("Content-Type", "application/json")
        if path.startswith("/v1/"):
            connection = UnixConnection(self.agent_socket)
        else:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
            headers.setdefault("Host", "127.0.0.1:%d" % self.port)
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def check(self, operation, method, path, status, raw, what):
        where = "%s %s (%s)" % (method, path, what)
        if status >= 500 and str(status) not in operation["responses"]:
            self.failures.append("%s: server error %d: %s" % (where, status, raw[:300]))
            return
        listed = operation["responses"].get(str(status))
        if listed is None:
            self.failures.append("%s: status %d is not in the spec: %s" % (where, status, raw[:300]))
            return
        listed = self.resolve(listed)
        content = (listed.get("content") or {}).get("application/json")
        if content is None:
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self.failures.append("%s: %d with a body that is not JSON: %s" % (where, status, raw[:300]))
            return
        try:
            jsonschema.validate(body, self.schema(content["schema"]))
        except jsonschema.ValidationError as error:
            self.failures.append(
                "%s: %d body breaks its schema at %s: %s" % (where, status, list(error.absolute_path), error.message))

    def start_task(self):
        status, raw = self.send("POST", "/v1/tasks", {"task_title": "contract"})
        return json.loads(raw)["live_activity"]["request_id"] if status == 201 else "missing"

    def path_for(self, template):
        path = template
        if "{request_id}" in path:
            path = path.replace("{request_id}", self.start_task())
        return path

    def valid_bodies(self, method, template, operation, examples, rng):
        body_spec = (operation.get("requestBody") or {}).get("content", {}).get("application/json")
        if body_spec is None:
            return
        strategy = from_schema(self.schema(body_spec["schema"]))

        @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
                  suppress_health_check=list(HealthCheck))
        @seed(rng.randrange(2**32))
        @given(strategy)
        def run(body):
            path = self.path_for(template)
            status, raw = self.send(method, path, body)
            what = "allowed body %s" % json.dumps(body)[:200]
            self.check(operation, method, path, status, raw, what)
            if status == 400 and self.cross_field_refusal(body_spec["schema"], raw):
                return  # a rule between fields the schema cannot say, listed in the spec beside it
            if status in (400, 413, 415):
                self.failures.append("%s %s: refused a body the spec allows (%s): %d %s" % (
                    method, path, what, status, raw[:300]))

        run()

    def cross_field_refusal(self, schema, raw):
        """Whether a 400 is one of the schema's `x-cross-field-rules` (field and message as the spec lists them)."""
        try:
            error = json.loads(raw)["error"]
        except (ValueError, KeyError, TypeError):
            return False
        rules = self.resolve(schema).get("x-cross-field-rules", [])
        return any(error.get("field") == rule["field"] and rule["message"] in error.get("message", "") for rule in rules)

    def forbidden_bodies(self, method, template, operation):
        body_spec = (operation.get("requestBody") or {}).get("content", {}).get("application/json")
        if body_spec is None:
            return
        schema = self.resolve(body_spec["schema"])
        properties = schema.get("properties", {})
        base = {name: self.minimal(self.flatten(prop)) for name, prop in properties.items()
                if name in schema.get("required", [])}
        cases = []
        for name in schema.get("required", []):
            body = dict(base)
            body.pop(name)
            cases.append(("without required %s" % name, body))
        for name, prop in properties.items():
            prop = self.flatten(prop)
            for wrong in self.wrong_values(prop):
                body = dict(base)
                body[name] = wrong
                cases.append(("%s = %s" % (name, json.dumps(wrong)), body))
        validator = self.schema(body_spec["schema"])
        for what, body in cases:
            if jsonschema.Draft7Validator(validator).is_valid(body):
                continue  # the mutation happens to be allowed
            self.refused(method, template, operation, "forbidden body: " + what, body=body)
        # Not JSON, or JSON that is not an object: refused as invalid, never a server error.
        for raw_body in (b"{", b"[1]", b'"text"', b"null", b'{"a": 1} trailing', b"\xff\xfe{}"):
            self.refused(method, template, operation, "malformed body %r" % raw_body, raw_body=raw_body)
        # A JSON endpoint that lists 415 takes no other media type.
        if "415" in operation["responses"]:
            self.refused(method, template, operation, "text/plain body", raw_body=json.dumps(base).encode(),
                         headers={"Content-Type": "text/plain"}, expect="415")

    def refused(self, method, template, operation, what, body=None, raw_body=None, headers=None, expect=None):
        """Sends a request the spec forbids: a listed status, never a 2xx (and `expect` when given)."""
        path = self.path_for(template)
        status, raw = self.send(method, path, body, headers=headers, raw_body=raw_body)
        self.check(operation, method, path, status, raw, what)
        if 200 <= status < 300:
            self.failures.append("%s %s: accepted a request the spec forbids (%s): %s" % (method, path, what, raw[:200]))
        elif expect is not None and str(status) != expect and status != 403:  # the access rules come first
            self.failures.append("%s %s: %s answered %d, not %s: %s" % (method, path, what, status, expect, raw[:200]))

    def minimal(self, prop):
        if "enum" in prop:
            return prop["enum"][0]
        kind = prop.get("type")
        if kind == "string":
            return "a" * max(1, prop.get("minLength", 1))
        if kind == "integer":
            return prop.get("minimum", 0)
        if kind == "number":
            return prop.get("minimum", 0)
        if kind == "boolean":
            return False
        return None

    @staticmethod
    def wrong_values(prop):
        """Values `prop` forbids: the wrong type, and for its constraints one value just past each (candidates that
        happen to be allowed are dropped by the caller's validation)."""
        kind = prop.get("type")
        values = [] if prop.get("nullable") else [None]
        values += {"string": [7, True], "integer": ["7", 1.5], "number": ["7"], "boolean": ["yes", 1]}.get(kind, [])
        if kind == "string":
            if "maxLength" in prop:
                values.append("a" * (prop["maxLength"] + 1))
            if prop.get("minLength", 0) > 0:
                values.append("a" * (prop["minLength"] - 1))
            if "pattern" in prop:
                values += [text for text in ("", " ", "a b", "!", "\u202e", "..", "A" * 300)
                           if not re.search(prop["pattern"], text)]
            if "enum" in prop:
                values.append("not-" + str(prop["enum"][0]))
        if kind in ("integer", "number"):
            if "minimum" in prop:
                values.append(prop["minimum"] - 1)
            if "maximum" in prop:
                values.append(prop["maximum"] + 1)
            if "exclusiveMinimum" in prop and not isinstance(prop["exclusiveMinimum"], bool):
                values.append(prop["exclusiveMinimum"])
            if "exclusiveMaximum" in prop and not isinstance(prop["exclusiveMaximum"], bool):
                values.append(prop["exclusiveMaximum"])
        if kind == "array" and "maxItems" in prop:
            values.append([None] * (prop["maxItems"] + 1))
        return values

    def gets(self, template, item, operation, examples, rng):
        """A GET without parameters, then with query parameters the spec allows."""
        path = self.path_for(template)
        status, raw = self.send("GET", path)
        self.check(operation, "GET", path, status, raw, "no parameters")
        parameters = [self.resolve(parameter) for parameter in item.get("parameters", []) + operation.get("parameters", [])]
        query = [parameter for parameter in parameters if parameter["in"] == "query"]
        if not query:
            return
        self.forbidden_queries(template, operation, query)
        strategy = st.fixed_dictionaries(
            {parameter["name"]: from_schema(self.schema(parameter["schema"])) for parameter in query if parameter.get("required")},
            optional={parameter["name"]: from_schema(self.schema(parameter["schema"]))
                      for parameter in query if not parameter.get("required")})

        @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @seed(rng.randrange(2**32))
        @given(strategy)
        def run(values):
            # A long-poll (x-held-by names its parameter) is held at most a second, within the socket's timeout.
            held = operation.get("x-held-by")
            if held:
                values = dict(values, **{held: min(values.get(held, 1), 1)})
            target = self.path_for(template) + "?" + urllib.parse.urlencode(
                {name: json.dumps(value) if not isinstance(value, str) else value for name, value in values.items()})
            status, raw = self.send("GET", target)
            self.check(operation, "GET", target, status, raw, "allowed query")
            if status == 400:
                self.failures.append("GET %s: refused a query the spec allows: %s" % (target, raw[:300]))

        run()

    def forbidden_queries(self, template, operation, query):
        """Each query parameter with a constraint in turn given a value its schema forbids (the others left out):
        refused, never a 2xx."""
        for parameter in query:
            prop = self.flatten(parameter["schema"])
            if not any(key in prop for key in ("minimum", "maximum", "pattern", "enum", "maxLength", "minLength")) \
                    and prop.get("type") not in ("integer", "number", "boolean"):
                continue
            validator = jsonschema.Draft7Validator(self.schema(parameter["schema"]))
            for wrong in self.wrong_values(prop):
                if wrong is None or isinstance(wrong, list) or validator.is_valid(wrong):
                    continue
                if prop.get("type") == "string" and not isinstance(wrong, str):
                    continue  # in a query every value is text: 7 is the string "7"
                # Query values are text: a number's text is what a client would send for a wrong number.
                text = wrong if isinstance(wrong, str) else json.dumps(wrong)
                if prop.get("type") in ("integer", "number") and isinstance(wrong, str) and validator.is_valid(
                        json.loads(text) if re.fullmatch(r"-?[0-9.]+", text) else None):
                    continue
                target = self.path_for(template) + "?" + urllib.parse.urlencode({parameter["name"]: text})
                status, raw = self.send("GET", target)
                self.check(operation, "GET", target, status, raw, "forbidden query %s=%s" % (parameter["name"], text))
                if 200 <= status < 300:
                    self.failures.append("GET %s: accepted a query the spec forbids: %s" % (target, raw[:200]))

    def run(self, examples, rng):
        for template, item in self.spec["paths"].items():
            for method, operation in item.items():
                if method not in ("get", "post", "patch", "put", "delete"):
                    continue
                method = method.upper()
                if method == "GET":
                    self.gets(template, item, operation, examples, rng)
                    continue
                self.valid_bodies(method, template, operation, examples, rng)
                self.forbidden_bodies(method, template, operation)
        # Every read again, now that the writes above left tasks, answers, events and an app state behind.
        for template, item in self.spec["paths"].items():
            if "get" in item:
                path = self.path_for(template)
                status, raw = self.send("GET", path)
                self.check(item["get"], "GET", path, status, raw, "after the writes")


def narrow_status(spec):
    """`GET /api/live-activity/current` no longer lists 200: every answer the board gives there is unlisted."""
    del spec["paths"]["/api/live-activity/current"]["get"]["responses"]["200"]


def narrow_body(spec):
    """A task answer must carry a member the board never sends: every such body breaks its schema."""
    answer = spec["components"]["schemas"]["CurrentAnswer"]
    answer["required"] = list(answer["required"]) + ["narrowed"]


def narrow_limit(spec):
    """A title may be at most 3 characters: the board accepts longer ones, which the spec now forbids."""
    spec["components"]["schemas"]["Title"]["maxLength"] = 3


NARROWINGS = {"status": narrow_status, "body": narrow_body, "limit": narrow_limit}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("spec")
    parser.add_argument("port", type=int)
    parser.add_argument("agent_socket")
    parser.add_argument("--examples", type=int, default=40)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--narrow", choices=sorted(NARROWINGS))
    args = parser.parse_args()
    chosen = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    print("contract: seed %d (again: --seed %d)" % (chosen, chosen), flush=True)
    with open(args.spec) as spec_file:
        spec = yaml.safe_load(spec_file)
    if args.narrow:
        NARROWINGS[args.narrow](spec)
        print("contract: the spec narrowed: " + NARROWINGS[args.narrow].__doc__.split(":")[0], flush=True)
    contract = Contract(spec, args.port, args.agent_socket)
    contract.run(args.examples, random.Random(chosen))
    for failure in contract.failures[:40]:
        print("contract: " + failure)
    print("contract: %d requests, %d disagreements" % (contract.requests, len(contract.failures)))
    return 1 if contract.failures else 0


if __name__ == "__main__":
    sys.exit(main())
