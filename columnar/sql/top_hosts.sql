-- The 20 hosts with the most captures: captures, record bytes (unknown
-- lengths count 0), distinct URLs, and the first and last capture year.
-- Reads the view captures (see daily.sql).
SELECT url_host_name AS host,
       count(*) AS captures,
       sum(greatest(warc_record_length, 0))::BIGINT AS bytes,
       count(DISTINCT url) AS urls,
       min(year(fetch_time)) AS first_year,
       max(year(fetch_time)) AS last_year
FROM captures
WHERE url_host_name IS NOT NULL
GROUP BY host
ORDER BY captures DESC, host
LIMIT 20;
