-- What qBittorrent's disk has free (server_state.free_space_on_disk), kept on a
-- download only while the rest of it does not fit there; NULL otherwise. The
-- status message says so with both figures, and a stall or an error then reads
-- as a full disk.
ALTER TABLE download ADD COLUMN free_space INTEGER;
