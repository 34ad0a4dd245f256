"""The Events benchmark's Python peer: an AppSync Events reader with the `websockets` library (the
stand-in's own dependency, in the test-tools venv) reading the same burst as the Swift side.

    peer.py WS_URL HOST API_KEY CHANNEL COUNT

Connects with API_KEY authorization (the header-<base64url> subprotocol), sends connection_init,
subscribes to CHANNEL, prints "READY" once subscribe_success arrives, then reads data messages
until COUNT have arrived, parsing each message and its event as the Swift reader does. Each event
holds the wall-clock time (ns) the burst began (sentNs). Prints one JSON line: {"latencies":
[ns...], "first": ns, "last": ns, "cpu": CPU seconds while reading}.
"""
import asyncio
import base64
import json
import resource
import sys
import time

import websockets


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def read():
    url, host, api_key, channel, count = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    auth = {"host": host, "x-api-key": api_key}
    header = base64.urlsafe_b64encode(json.dumps(auth).encode()).decode().rstrip("=")
    async with websockets.connect(url, subprotocols=["aws-appsync-event-ws", f"header-{header}"], max_size=None) as socket:
        await socket.send(json.dumps({"type": "connection_init"}))
        while json.loads(await socket.recv())["type"] != "connection_ack":
            pass
        await socket.send(json.dumps({"type": "subscribe", "id": "1", "channel": channel, "authorization": auth}))
        while json.loads(await socket.recv())["type"] != "subscribe_success":
            pass
        print("READY", flush=True)
        latencies, first, start_cpu = [], None, cpu()
        while len(latencies) < count:
            message = json.loads(await socket.recv())
            now = time.time_ns()
            if message.get("type") != "data":
                continue
            event = json.loads(message["event"])
            first = first or now
            latencies.append(now - event["sentNs"])
        print(json.dumps({"latencies": latencies, "first": first, "last": time.time_ns(), "cpu": cpu() - start_cpu}), flush=True)


asyncio.run(read())
