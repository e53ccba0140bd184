-- The same shares from a summary table (`summarize export`), per summary
-- file: compare archives by their published summaries.
-- Reads the view summaries:
--   CREATE VIEW summaries AS SELECT * FROM read_parquet('summaries.parquet');
SELECT summary_file, year, category,
       sum(captures)::BIGINT AS captures,
       sum(bytes)::BIGINT AS bytes,
       round(sum(captures) / sum(sum(captures)) OVER (PARTITION BY summary_file, year), 4) AS capture_share,
       round(sum(bytes) / nullif(sum(sum(bytes)) OVER (PARTITION BY summary_file, year), 0), 4) AS byte_share
FROM summaries
GROUP BY summary_file, year, category
ORDER BY summary_file, year, captures DESC, category;
