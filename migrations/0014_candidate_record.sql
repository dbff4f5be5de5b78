-- A candidate is stored whole: ``record`` is recognition.candidates.Candidate as
-- JSON (Candidate.as_json), so a field TMDB gains (shown on the card) needs no
-- column and no change to the store. The other columns stay for the queries that
-- read them. A library title keeps the record of the candidate it was adopted from
-- (without a download's evidence and score).
ALTER TABLE metadata_candidate ADD COLUMN record TEXT;
UPDATE metadata_candidate SET record = json_object(
    'provider', provider,
    'provider_id', provider_id,
    'kind', kind,
    'title', title,
    'original_title', original_title,
    'year', year,
    'overview', overview,
    'poster_path', poster_path,
    'popularity', coalesce(popularity, 0.0),
    'seasons', json(seasons),
    'score', score,
    'evidence', json(evidence)
);
ALTER TABLE title ADD COLUMN record TEXT;
UPDATE title SET record = json_object(
    'provider', provider,
    'provider_id', CASE WHEN provider = 'tmdb' THEN provider_id END,
    'kind', kind,
    'title', name,
    'original_title', NULL,
    'year', year,
    'overview', overview,
    'poster_path', poster_path,
    'popularity', 0.0
);
