-- The End of Term daily series: for every day (UTC) and organization, the
-- captures and their record bytes, all and 2xx only, as `summarize daily`
-- counts them. Revisits are counted apart (their own column); a record key
-- seen on several lines counts once, on its first line (by input_file,
-- then input_line); a timestamp without a full day (fewer than 8 digits)
-- counts nowhere. An unknown length (-1) counts 0 bytes.
-- Reads the view captures:
--   CREATE VIEW captures AS SELECT * FROM read_parquet('export/**/*.parquet', hive_partitioning = true);
SET TimeZone = 'UTC';

WITH dated AS (
  SELECT strftime(fetch_time, '%Y%m%d') AS day, organization, record_key, revisit,
         fetch_status BETWEEN 200 AND 299 AS ok, greatest(warc_record_length, 0) AS bytes,
         input_file, input_line
  FROM captures
  WHERE fetch_time_digits >= 8
),
counted AS (
  SELECT * FROM dated
  WHERE NOT revisit
  QUALIFY row_number() OVER (PARTITION BY record_key ORDER BY input_file, input_line) = 1
),
series AS (
  SELECT day, organization,
         count(*) AS captures,
         sum(bytes)::BIGINT AS bytes,
         count(*) FILTER (WHERE ok) AS ok_captures,
         coalesce(sum(bytes) FILTER (WHERE ok), 0)::BIGINT AS ok_bytes
  FROM counted
  GROUP BY day, organization
),
revisits AS (
  SELECT day, organization, count(*) AS revisits
  FROM dated
  WHERE revisit
  GROUP BY day, organization
)
SELECT day, organization,
       coalesce(captures, 0) AS captures, coalesce(bytes, 0) AS bytes,
       coalesce(ok_captures, 0) AS ok_captures, coalesce(ok_bytes, 0) AS ok_bytes,
       coalesce(revisits, 0) AS revisits
FROM series FULL JOIN revisits USING (day, organization)
ORDER BY day, organization;
