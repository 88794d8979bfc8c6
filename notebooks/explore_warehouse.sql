-- Databricks notebook source
-- MAGIC %md
-- MAGIC # Explore an Infuse warehouse
-- MAGIC Run `bin/infuse demo` first. Locally, `bin/infuse sql --warehouse ./warehouse "<query>"` runs any cell below.
-- MAGIC On Databricks, register the tables once, e.g.
-- MAGIC `CREATE TABLE IF NOT EXISTS documents USING DELTA LOCATION 'dbfs:/infuse/warehouse/documents'`
-- MAGIC (and the same for questions, chunks, quarantine, runs). CI runs every SQL cell against the demo's warehouse.

-- COMMAND ----------

-- Documents per corpus, with their size in characters.
SELECT corpus, count(*) AS documents, sum(length(text)) AS characters
FROM documents
GROUP BY corpus
ORDER BY corpus;

-- COMMAND ----------

-- Questions per benchmark, split and answer type, and how many sit in a named subset.
SELECT benchmark, split, answer_type, count(*) AS questions,
       sum(CASE WHEN size(subsets) > 0 THEN 1 ELSE 0 END) AS in_a_subset
FROM questions
GROUP BY benchmark, split, answer_type
ORDER BY benchmark, split;

-- COMMAND ----------

-- Gold answer balance: a skewed letter distribution is worth knowing before scoring.
SELECT benchmark, gold, count(*) AS questions
FROM questions
WHERE answer_type = 'mcq'
GROUP BY benchmark, gold
ORDER BY benchmark, gold;

-- COMMAND ----------

-- Chunks per document and their token sizes, per chunking setting.
SELECT c.doc_id, d.title, c.tokenizer, c.max_tokens, count(*) AS chunks,
       min(c.n_tokens) AS min_tokens, round(avg(c.n_tokens)) AS avg_tokens, max(c.n_tokens) AS max_tokens_seen
FROM chunks c JOIN documents d ON d.doc_id = c.doc_id
GROUP BY c.doc_id, d.title, c.tokenizer, c.max_tokens
ORDER BY c.doc_id;

-- COMMAND ----------

-- Every chunk maps back into its document exactly: this must return one row with mismatches = 0.
SELECT count(*) AS chunks,
       sum(CASE WHEN substring(d.text, c.char_start + 1, c.char_end - c.char_start) = c.text THEN 0 ELSE 1 END) AS mismatches
FROM chunks c JOIN documents d ON d.doc_id = c.doc_id;

-- COMMAND ----------

-- The run log: what each job read, wrote and quarantined. read = written + quarantined for succeeded runs.
SELECT run_id, job, status, input_count, output_count, quarantined_count,
       input_count = output_count + quarantined_count AS reconciles,
       round((unix_millis(ended_at) - unix_millis(started_at)) / 1000.0, 1) AS seconds
FROM runs
ORDER BY started_at;

-- COMMAND ----------

-- Why records were quarantined, most common reasons first (empty for the demo; one row per job and reason otherwise).
SELECT coalesce(q.job, '-') AS job, coalesce(regexp_extract(q.reason, '^[^:]*', 0), '(nothing quarantined)') AS reason_kind,
       count(q.quarantine_id) AS records
FROM (SELECT 1) AS one LEFT JOIN quarantine q ON true
GROUP BY 1, 2
ORDER BY records DESC;

-- COMMAND ----------

-- Synthetic data per kind and variant, in tokens: the x-axis of a scaling study.
SELECT kind, variant, generator, count(*) AS documents, sum(n_tokens) AS tokens, round(avg(n_tokens)) AS avg_tokens
FROM synthetic_docs
GROUP BY kind, variant, generator
ORDER BY kind, variant;

-- COMMAND ----------

-- Synthetic QA pairs per source document, with the template version that made them.
SELECT q.doc_id, d.title, q.generator, q.template_id, q.template_version, count(*) AS pairs
FROM synthetic_qa q JOIN documents d ON d.doc_id = q.doc_id
GROUP BY q.doc_id, d.title, q.generator, q.template_id, q.template_version
ORDER BY q.doc_id;

-- COMMAND ----------

-- The LLM call cache: calls, tokens and latency per backend and model; a rerun adds nothing here.
SELECT backend, model, status, count(*) AS calls, sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out,
       round(avg(latency_ms)) AS avg_latency_ms, max(attempts) AS max_attempts
FROM llm_calls
GROUP BY backend, model, status;

-- COMMAND ----------

-- Embeddings per model: every chunk should have one, unit length.
SELECT e.model, e.dimension, count(*) AS chunks_embedded,
       (SELECT count(*) FROM chunks) AS chunks,
       round(max(abs(aggregate(e.vector, 0D, (acc, x) -> acc + x * x) - 1)), 6) AS max_norm_error
FROM chunk_embeddings e
GROUP BY e.model, e.dimension;

-- COMMAND ----------

-- Training curves: loss and throughput every 25 steps per run (a resumed run continues the step count).
SELECT run_id, device, step, round(loss, 4) AS loss, lr, round(grad_norm, 3) AS grad_norm,
       round(tokens_per_second) AS tokens_per_second, round(wall_seconds, 1) AS wall_seconds
FROM train_metrics
WHERE step % 25 = 0 OR step = 1
ORDER BY run_id, step;
