-- wrk script: POST {"userName": "..."} with a name that no other request ever sent, so that
-- every registration succeeds (201) and every locked one takes and releases its own lock.
-- Names: "w" + a random run id + thread number + request number, at most 30 characters.
--
--   wrk -t2 -c50 -d15s -s register.lua http://127.0.0.1:8090/api/users
--   wrk -t2 -c50 -d15s -s register.lua http://127.0.0.1:8090/api/unsafe/users

local threads = {}
local next_thread = 0
math.randomseed(os.time())
local run = string.format("%06x", math.random(0, 0xffffff))

function setup(thread)
	next_thread = next_thread + 1
	thread:set("thread_number", next_thread)
	thread:set("run", run)
	table.insert(threads, thread)
end

function init(args)
	requests_sent = 0
	wrk.method = "POST"
	wrk.headers["Content-Type"] = "application/json"
end

function request()
	requests_sent = requests_sent + 1
	local body = string.format('{"userName":"w%s-%d-%d"}', run, thread_number, requests_sent)
	return wrk.format(nil, nil, nil, body)
end

-- One line for scripts: requests/s, latency percentiles in ms, and failures (any status
-- other than 2xx or 3xx, socket errors, timeouts)
function done(summary, latency, requests)
	local seconds = summary.duration / 1e6
	local errors = summary.errors
	io.write(string.format(
		"RESULT requests=%d rps=%.0f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%d socket_errors=%d\n",
		summary.requests, summary.requests / seconds, latency:percentile(50) / 1000, latency:percentile(90) / 1000,
		latency:percentile(99) / 1000, latency.max / 1000, errors.status,
		errors.connect + errors.read + errors.write + errors.timeout))
end
