"""Reading release names, file names and what a person wrote (pure).

``guess`` wraps guessit (cached), ``anime`` anitopy for fansub names, ``release``
reads a torrent name or a file path, ``files`` tells main videos from extras,
``subtitles`` reads a subtitle's language, ``hints`` a person's text and
``identifiers`` the IMDb and TMDB ids in any text. ``recognition.recognize`` puts them
together for one download.
"""
