-- Each MIME category's share of each year's 2xx captures and bytes (UTC
-- years), counted as summaries count them: only a known 2xx status counts,
-- an unknown length counts 0 bytes. Reads the view captures (see daily.sql).
-- The year is taken from fetch_time in a subquery, so that a view over a
-- table partitioned by year (whose hive column is also named year) groups
-- by the same year.
SET TimeZone = 'UTC';

WITH ok AS (
  SELECT year(fetch_time) AS year,
         content_mime_category AS category,
         greatest(warc_record_length, 0) AS bytes
  FROM captures
  WHERE fetch_status BETWEEN 200 AND 299
)
SELECT year, category,
       count(*) AS captures,
       sum(bytes)::BIGINT AS bytes,
       round(count(*) / sum(count(*)) OVER (PARTITION BY year), 4) AS capture_share,
       round(sum(bytes) / nullif(sum(sum(bytes)) OVER (PARTITION BY year), 0), 4) AS byte_share
FROM ok
GROUP BY year, category
ORDER BY year, captures DESC, category;
