-- wrk script for scripts/bench: every request carries the session cookie given as wrk's first
-- argument after --; at the end one line "p95_ms=... requests=... errors=..." for the bench to read.
local cookie
function init(args)
    cookie = args[1]
end

function request()
    return wrk.format("GET", nil, { ["Cookie"] = cookie })
end

function done(summary, latency, requests)
    local errors = summary.errors.connect + summary.errors.read + summary.errors.write
                   + summary.errors.status + summary.errors.timeout
    io.write(string.format("p95_ms=%.2f requests=%d errors=%d\n", latency:percentile(95) / 1000, summary.requests, errors))
end
