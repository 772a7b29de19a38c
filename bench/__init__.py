"""The benchmark: the counter beside a bare Flask floor, under wrk."""
