-- Searches from the chat, the page and the API (docs/search.md). A search is what
-- a person typed, the titles TMDB found for it, the title picked, and what each
-- source answered; ``search_result`` rows are its titles and releases, each a
-- ULID that a button's callback data names. Old searches are deleted with their
-- results (``Searches.purge``); a button of a deleted one answers as every
-- outdated button.
CREATE TABLE search (
    id          TEXT    PRIMARY KEY NOT NULL,  -- ULID
    chat_id     INTEGER,                       -- NULL: the page or the API
    message_id  INTEGER,                       -- the bot's message showing it, once sent
    words       TEXT    NOT NULL,              -- what the person typed
    phase       TEXT    NOT NULL,              -- titles | releases | taken
    title       TEXT,                          -- the title picked (a candidate's JSON)
    sort        TEXT    NOT NULL DEFAULT 'quality',
    page        INTEGER NOT NULL DEFAULT 0,
    sources     TEXT    NOT NULL DEFAULT '{}', -- JSON: each source's answer so far
    running     INTEGER NOT NULL DEFAULT 0,    -- 1 while its sources are asked
    problem     TEXT,                          -- a reason (JSON) the titles could not be found
    download_id TEXT,                          -- the download a tapped release became
    shown       TEXT,                          -- the text and buttons last shown
    shown_at    TEXT,
    updated_at  TEXT    NOT NULL,
    created_at  TEXT    NOT NULL
);
CREATE INDEX search_due ON search (updated_at) WHERE message_id IS NOT NULL;
CREATE INDEX search_created ON search (created_at);

CREATE TABLE search_result (
    id        TEXT    PRIMARY KEY NOT NULL,  -- ULID: named by a button
    search_id TEXT    NOT NULL REFERENCES search (id) ON DELETE CASCADE,
    kind      TEXT    NOT NULL,              -- title | release
    rank      INTEGER NOT NULL,              -- a title's place; a release's arrival
    data      TEXT    NOT NULL               -- a candidate's or a release's JSON
);
CREATE INDEX search_result_of ON search_result (search_id, kind, rank);
