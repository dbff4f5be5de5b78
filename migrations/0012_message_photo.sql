-- One message per download: the poster a download's message shows, so that an
-- edit knows whether the message is a photo (its caption is edited, or its picture
-- replaced by editMessageMedia) or a text that becomes a photo. NULL: a text message.
-- A message superseded by the download's newer one (role 'superseded') is deleted
-- from the chat; one Telegram no longer lets the bot delete becomes 'moved'.
ALTER TABLE telegram_message ADD COLUMN photo TEXT;
