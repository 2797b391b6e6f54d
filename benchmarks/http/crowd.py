"""Times a crowd of simultaneous GET /api/sum calls over several instances of the sample app.

Every caller of a round asks for the same sum (values of the round's own, so that no earlier result is
there), from its own thread and connection, all released together by a barrier. For each answer it keeps
the time since the release; the first answer is the holder's, whose computation runs once; the others are
followers that got its result. /api/sum/calls before and after tells how often the computation ran.
Writes JSON to standard output.
"""
import argparse
import asyncio
import http.client
import json
import socket
import statistics
import subprocess
import sys
import threading
import time


def get(port, path, timeout=30):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def calls(port):
    # With the 'redis' profile the instances share one counter in Redis
    return json.loads(get(port, "/api/sum/calls")[1])["calls"]


def round_of(ports, size, values):
    barrier = threading.Barrier(size + 1)
    answers = [None] * size
    start = [0.0]

    def caller(index):
        port = ports[index % len(ports)]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.connect()
        barrier.wait()
        try:
            connection.request("GET", "/api/sum?values=" + values)
            response = connection.getresponse()
            body = response.read()
            answers[index] = (time.perf_counter() - start[0], response.status, body)
        except OSError as failure:
            answers[index] = (time.perf_counter() - start[0], 0, str(failure).encode())
        finally:
            connection.close()

    threads = [threading.Thread(target=caller, args=(i,)) for i in range(size)]
    for thread in threads:
        thread.start()
    start[0] = time.perf_counter()
    barrier.wait()
    for thread in threads:
        thread.join()
    times = sorted(answer[0] for answer in answers)
    statuses = {}
    for answer in answers:
        statuses[str(answer[1])] = statuses.get(str(answer[1]), 0) + 1
    bodies = {answer[2] for answer in answers if answer[1] == 200}
    return {
        "first_s": times[0],
        "median_s": statistics.median(times),
        "last_s": times[-1],
        "last_after_first_ms": (times[-1] - times[0]) * 1000,
        "statuses": statuses,
        "distinct_bodies": len(bodies),
    }


def serve_at_once(port, hold_s):
    """A stand-in for the instances, to measure the client alone: it holds every /api/sum request of a round
    and answers them all at the same instant, hold_s after the first arrived."""
    held = []

    async def answer(writer, body):
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                     b"Connection: close\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    async def release_later():
        await asyncio.sleep(hold_s)
        for waiting in held:
            waiting.set_result(None)
        held.clear()

    async def handle(reader, writer):
        request = await reader.readuntil(b"\r\n\r\n")
        if b"/api/sum/calls" in request:
            await answer(writer, b'{"calls":0}')
            return
        waiting = asyncio.get_running_loop().create_future()
        held.append(waiting)
        if len(held) == 1:
            asyncio.ensure_future(release_later())
        await waiting
        await answer(writer, b'{"sum":0}')

    async def run():
        server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=4096)
        async with server:
            await server.serve_forever()

    asyncio.run(run())


def client_alone(size, rounds):
    """The spread of the answers that the client itself adds: the same rounds against serve_at_once."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port)])
    try:
        for _ in range(100):
            try:
                calls(port)
                break
            except OSError:
                time.sleep(0.05)
        return [round_of([port], size, "0,%d" % r)["last_after_first_ms"] for r in range(rounds)]
    finally:
        server.terminate()
        server.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve", type=int, help="run the stand-in server of client_alone on this port")
    parser.add_argument("--ports", nargs="+", type=int)
    parser.add_argument("--sizes", nargs="+", type=int)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup-rounds", type=int, default=10)
    args = parser.parse_args()
    if args.serve:
        serve_at_once(args.serve, 1.0)
        return
    if not args.ports or not args.sizes:
        parser.error("--ports and --sizes are required")
    # Warm-up, not reported: crowds of the largest size until the JIT has compiled the request path. Freshly
    # started, the instances interpret it, and the last follower of a crowd of 150 comes about twice as late
    # in the first rounds as after ten.
    for i in range(args.warmup_rounds):
        round_of(args.ports, max(args.sizes), "9,%d,%d" % (i, int(time.time() * 1000)))
    crowds = []
    for size in args.sizes:
        rounds = []
        for r in range(args.rounds):
            before = calls(args.ports[0])
            result = round_of(args.ports, size, "%d,%d,%d" % (size, r, int(time.time() * 1000)))
            result["computations"] = calls(args.ports[0]) - before
            rounds.append(result)
            print("crowd of %d, round %d: first %.3f s, last %.3f s (%.1f ms after the first), %s, %d run(s)"
                  % (size, r + 1, result["first_s"], result["last_s"], result["last_after_first_ms"],
                     result["statuses"], result["computations"]), file=sys.stderr)
        crowds.append({"size": size, "rounds": rounds})
    alone = client_alone(max(args.sizes), args.rounds)
    print("client alone, crowd of %d: last answer %s ms after the first" % (
        max(args.sizes), ", ".join("%.1f" % spread for spread in alone)), file=sys.stderr)
    json.dump({"instances": len(args.ports), "warmup_rounds": args.warmup_rounds, "crowds": crowds,
               "client_alone": {"size": max(args.sizes), "last_after_first_ms": alone}}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
