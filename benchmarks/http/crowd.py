"""Times a crowd of simultaneous GET /api/sum calls over several instances of the sample app.

Every caller of a round asks for the same sum (values of the round's own, so that no earlier result is
there), from its own thread and connection, all released together by a barrier. For each answer it keeps
the time since the release; the first answer is the holder's, whose computation runs once; the others are
followers that got its result. /api/sum/calls before and after tells how often the computation ran.
Writes JSON to standard output.
"""
import argparse
import http.client
import json
import statistics
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ports", nargs="+", type=int, required=True)
    parser.add_argument("--sizes", nargs="+", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    # Warm-up: the first calls of a JVM are slow for reasons that have nothing to do with the lock
    for i in range(3):
        round_of(args.ports, 10, "9,%d" % i)
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
    json.dump({"instances": len(args.ports), "crowds": crowds}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
