"""The API benchmark's Python peer: a real-time client with the `websockets` library (the
AppSync stand-in's own dependency, in the test-tools venv) reading the same subscription stream
as the Swift side.

    peer.py read WS_URL HOST API_KEY NAME COUNT
    peer.py mutate HTTP_URL API_KEY NAME COUNT IN_FLIGHT

Connects with API_KEY authorization, sends connection_init, starts onCreateTodo(name: NAME),
prints "READY" once start_ack arrives, then reads data messages until COUNT have arrived. Each
todo's description holds the wall-clock time (ns) its mutation was sent; the latency of an event
is the time it was read minus that. Prints one JSON line: {"latencies": [ns...], "first": ns,
"last": ns, "cpu": CPU seconds while reading}.

`mutate` sends COUNT createTodo mutations named NAME, IN_FLIGHT at a time (threads with a
kept-alive connection each), each description the wall-clock time (ns) it was sent; a process of
its own, so that neither reader's CPU includes sending.
"""
import asyncio
import base64
import http.client
import json
import resource
import sys
import threading
import time
from urllib.parse import urlsplit

import websockets


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def mutate(url, api_key, name, count, in_flight):
    parts = urlsplit(url)
    # AppSync publishes the fields the mutation selected: the subscription needs name and description.
    document = "mutation C($input: CreateTodoInput!) { createTodo(input: $input) { id name description } }"

    def worker(indices):
        connection = http.client.HTTPConnection(parts.hostname, parts.port)
        for _ in indices:
            body = json.dumps({"query": document, "variables": {"input": {"name": name, "description": str(time.time_ns())}}})
            connection.request("POST", parts.path, body=body, headers={"Content-Type": "application/json", "x-api-key": api_key})
            answer = connection.getresponse()
            answer.read()
            if answer.status != 200:
                raise SystemExit(f"mutation answered {answer.status}")

    threads = [threading.Thread(target=worker, args=(range(w, count, in_flight),)) for w in range(in_flight)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


async def read():
    url, host, api_key, name, count = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6])
    header = base64.b64encode(json.dumps({"host": host, "x-api-key": api_key}).encode()).decode()
    query = "subscription S($name: String) { onCreateTodo(name: $name) { id name description } }"
    data = json.dumps({"query": query, "variables": {"name": name}})
    async with websockets.connect(f"{url}?header={header}&payload=e30=", subprotocols=["graphql-ws"], max_size=None) as socket:
        await socket.send(json.dumps({"type": "connection_init"}))
        while json.loads(await socket.recv())["type"] != "connection_ack":
            pass
        await socket.send(json.dumps({"id": "1", "type": "start", "payload": {
            "data": data, "extensions": {"authorization": {"host": host, "x-api-key": api_key}}}}))
        while json.loads(await socket.recv())["type"] != "start_ack":
            pass
        print("READY", flush=True)
        latencies, first, start_cpu = [], None, cpu()
        while len(latencies) < count:
            message = json.loads(await socket.recv())
            now = time.time_ns()
            if message.get("type") != "data":
                continue
            sent = int(message["payload"]["data"]["onCreateTodo"]["description"])
            first = first or now
            latencies.append(now - sent)
        print(json.dumps({"latencies": latencies, "first": first, "last": time.time_ns(), "cpu": cpu() - start_cpu}), flush=True)


if sys.argv[1] == "mutate":
    mutate(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
else:
    asyncio.run(read())
