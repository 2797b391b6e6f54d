-- wrk script: every request registers a user name that no request used before, so that each
-- one goes through the whole registration (and, on /api/users, through the lock) instead of
-- being rejected early as already registered (the label, the time and the thread make the
-- names of different runs differ). Usage: wrk ... -s register.lua URL -- LABEL
-- The summary is printed as one JSON line, for benchmarks/report.py.

local threads = {}

function setup(thread)
	thread:set("id", #threads)
	table.insert(threads, thread)
end

-- A short code of the run's label, so that names stay within the sample app's 30 characters
local function code(text)
	local hash = 5381
	for i = 1, #text do
		hash = (hash * 33 + text:byte(i)) % 2147483647
	end
	return string.format("%x", hash)
end

function init(args)
	local label = args[1] or "run"
	-- At most 8 + 1 + 6 + 1 + 2 + 1 characters, and the counter's digits: under 30
	prefix = code(label) .. "-" .. (os.time() % 1000000) .. "-" .. id .. "-"
	counter = 0
	headers = { ["Content-Type"] = "application/json" }
end

function request()
	counter = counter + 1
	return wrk.format("POST", nil, headers, '{"userName":"' .. prefix .. counter .. '"}')
end

function done(summary, latency, requests)
	local errors = summary.errors
	io.write(string.format(
		'WRK_JSON {"requests": %d, "duration_us": %d, "non_2xx_3xx": %d, "socket_errors": %d, '
			.. '"latency_mean_us": %.1f, "latency_p50_us": %d, "latency_p99_us": %d, "latency_max_us": %d}\n',
		summary.requests, summary.duration, errors.status,
		errors.connect + errors.read + errors.write + errors.timeout,
		latency.mean, latency:percentile(50), latency:percentile(99), latency.max))
end
