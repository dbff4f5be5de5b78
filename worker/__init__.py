"""Background work on the event loop: qBittorrent adapter, poller, ingest, actions."""
