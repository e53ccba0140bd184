-- Each MIME category's share of each year's 2xx captures and bytes (UTC
-- years), counted as summaries count them: only a known 2xx status counts,
-- an unknown length counts 0 bytes. Reads the view captures (see daily.sql).
SET TimeZone = 'UTC';

SELECT year(fetch_time) AS year,
       content_mime_category AS category,
       count(*) AS captures,
       sum(greatest(warc_record_length, 0))::BIGINT AS bytes,
       round(count(*) / sum(count(*)) OVER (PARTITION BY year(fetch_time)), 4) AS capture_share,
       round(sum(greatest(warc_record_length, 0)) / nullif(sum(sum(greatest(warc_record_length, 0))) OVER (PARTITION BY year(fetch_time)), 0), 4) AS byte_share
FROM captures
WHERE fetch_status BETWEEN 200 AND 299
GROUP BY year, category
ORDER BY year, captures DESC, category;
