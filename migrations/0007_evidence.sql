-- Decisions carry their evidence (docs/recognition.md).

-- How a candidate matched the release: JSON of core.evidence.Evidence
-- ({"title": "exact", "matched": "…", "year": "near", "seasons": "fit", …}).
ALTER TABLE metadata_candidate ADD COLUMN evidence TEXT;
-- A show's seasons as TMDB counts them: JSON [[number, episodes, year], …]; the
-- layout places absolute episode numbers ("Title - 29") by them.
ALTER TABLE metadata_candidate ADD COLUMN seasons TEXT;
-- The video a subtitle belongs to (its path): a subtitle of a movie's second part
-- is named after that part.
ALTER TABLE recognition_file ADD COLUMN video TEXT;
-- 1 when a file's episode number counts on from the first season ("Title S3 - 59"):
-- the layout moves it into its season by the chosen show's episode counts.
ALTER TABLE recognition_file ADD COLUMN absolute INTEGER NOT NULL DEFAULT 0;
