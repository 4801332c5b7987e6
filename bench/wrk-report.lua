-- wrk report for bench/run: totals, error counts and the latency percentile curve.
--
-- wrk keeps a per-microsecond latency histogram; a percentile grid (1 … 99 in steps of 1,
-- then 99.1 … 99.9, 99.91 … 99.99, and the maximum) is enough to draw the distribution and to
-- merge runs, and each percentile costs one pass over the histogram, so this stays fast even
-- with millisecond outliers.
done = function(summary, latency, requests)
    local e = summary.errors
    io.write(string.format("AIDEN-SUMMARY requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d\n",
        summary.requests, summary.duration, summary.bytes,
        e.connect, e.read, e.write, e.status, e.timeout))
    io.write(string.format("AIDEN-P 0 %d\n", latency.min))
    local grid = {}
    for p = 1, 99 do grid[#grid + 1] = p end
    for k = 1, 9 do grid[#grid + 1] = 99 + k / 10 end
    for k = 1, 9 do grid[#grid + 1] = 99.9 + k / 100 end
    for _, p in ipairs(grid) do
        io.write(string.format("AIDEN-P %.2f %d\n", p, latency:percentile(p)))
    end
    io.write(string.format("AIDEN-P 100 %d\n", latency.max))
end
