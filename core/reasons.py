"""Why something happened, stored as a code with parameters and worded late.

A reason is written to the database as JSON (``{"code": "review.ambiguous",
"count": 2}``) and turned into words per reader, in their language, where it is
shown (``common.explain``). ``TEMPLATES`` holds every code with its English
words; they are the msgids of the translations. Text stored before codes
existed reads back as the code ``text`` with the words as its ``text`` parameter
(migration 0009 converted what it recognized).

Parameters are data: names, paths, numbers, another system's own message.
``confidence`` (0..1) reads as a percentage, ``seconds`` as a duration and
``<name>_bytes`` as a size, as ``{name}``.
Another system's words (``DETAILS``: qBittorrent's "Fails.", an OS error) are
never in a template: a person reads the reason in their language, and the
verbatim words are a detail, on the download's card and in the English.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from core.clock import format_duration

Value = str | int | float
# Parameters that hold another system's words, or a developer's: never worded in a
# template, shown verbatim beside the reason (``Reason.detail``).
DETAILS = ("detail", "error", "qbt_state", "method")


def N_(text: str) -> str:
    """Marks an English template for translation; the reader's words are looked
    up where the reason is shown."""
    return text


TEMPLATES: Mapping[str, str] = {
    # How a download came to be.
    "created.telegram": N_("Sent in Telegram."),
    "created.api": N_("Added through the API."),
    "created.adopted": N_("Found in qBittorrent."),
    # What qBittorrent showed.
    "qbt.seen": N_("Seen in qBittorrent."),
    "qbt.complete": N_("The download is complete."),
    "qbt.error": N_(
        "qBittorrent stopped the torrent with an error: check it there, then press Retry."
    ),
    "qbt.missing_files": N_(
        "qBittorrent cannot find the torrent's files: were they moved or deleted?"
    ),
    "qbt.resumed": N_("Progress resumed."),
    "qbt.vanished": N_("The torrent disappeared from qBittorrent before it completed."),
    "qbt.no_progress": N_("No progress for {duration}."),
    "qbt.disk_full": N_(
        "The disk is full: it needs {needed} more, {free} free. Free space, then press Retry."
    ),
    "qbt.back": N_("The torrent is back in qBittorrent."),
    "qbt.refused": N_("qBittorrent refused to add the torrent."),
    "qbt.unreachable": N_("qBittorrent is not answering: I will add it as soon as it is back."),
    # What the person did.
    "person.retry": N_("Retried by you."),
    "person.retry_failed": N_("Tried again: qBittorrent refused the torrent again."),
    "person.picked": N_("Title picked by you."),
    "person.relink": N_("Laid out again at your request."),
    "person.download_again": N_("Downloading again at your request."),
    "person.cancel": N_("Cancelled by you."),
    "person.corrected": N_("Recognized again with your corrections."),
    # Recognition: why a title was taken, or why the person is asked.
    "auto.identifier": N_("Picked on its own: the release names its id."),
    "auto.only": N_("Picked on its own: the only title that matches the name."),
    "auto.year": N_("Picked on its own: the year in the name matches."),
    "auto.country": N_("Picked on its own: the country in the name matches."),
    "auto.language": N_("Picked on its own: the language in the name is its original language."),
    "auto.article": N_("Picked on its own: the name spells its title as it is, article or not."),
    "auto.whole": N_(
        "Picked on its own: the name is its whole title, not the start of a longer one."
    ),
    "auto.service": N_("Picked on its own: the streaming service in the name shows it."),
    "auto.genre": N_(
        "Picked on its own: the name says what kind of work it is (anime, documentary…)."
    ),
    "auto.episode": N_("Picked on its own: only its episode has the name the release gives it."),
    "auto.aired": N_("Picked on its own: only it aired an episode on the date in the name."),
    "auto.seasons": N_("Picked on its own: only it has these seasons and episodes."),
    "auto.pack": N_("Picked on its own: the season in the torrent is its whole season."),
    "auto.listed": N_("Picked on its own: its episode lists name the files in the torrent."),
    "auto.capture": N_("Picked on its own: a TV recording, and only it was on the air then."),
    "auto.runtime": N_("Picked on its own: the file is too large for the other titles' length."),
    "auto.complete": N_(
        "Picked on its own: the complete series in the torrent is all its seasons."
    ),
    "auto.popularity": N_(
        "Picked on its own: far more watched than the other titles of that name."
    ),
    "auto.local": N_("Named after the torrent: no metadata provider is set."),
    "review.nothing": N_("Nothing in the metadata matches “{title}”."),
    "review.contradicted": N_(
        "Every title found contradicts the name: another year, country, or seasons it "
        "does not have."
    ),
    "review.weak": N_("No title matches the name well enough."),
    "review.ambiguous": N_("Several titles match equally well: pick the right one."),
    "review.unsure": N_("The best match is not certain enough ({percent} %)."),
    "review.no_title": N_("Could not tell what this is from its name."),
    "review.no_year": N_("A movie without a year: pick or correct the title."),
    "review.episode_unknown": N_(
        "The episode of {file} is unknown: it is not placed under a guess."
    ),
    "review.season_unknown": N_(
        "The name says “{words}”, which is no season this title has: set the season of {file}."
    ),
    "review.hint_unread": N_(
        "You wrote “{hint}”, which does not name one title: pick the one you meant."
    ),
    "review.episode_twice": N_(
        "{other} and {file} would both be {episode}: neither is placed under a guess."
    ),
    "review.date_unlisted": N_(
        "{file} is dated {date}, and TMDB lists no episode or two of this title on that"
        " day: it is not placed."
    ),
    "review.date_disagrees": N_(
        "{file} is dated {date}, and TMDB lists another episode on that day than its"
        " name numbers: it is not placed."
    ),
    "review.date_two_ways": N_(
        "{file} is dated so that the day and the month could be either: set its episode."
    ),
    "review.episode_unlisted": N_(
        "{file} would be {episode}, which TMDB does not list for this title: it is not placed."
    ),
    "review.no_video": N_("There is nothing to put in the library: no video files."),
    "picked": N_("Picked by you."),
    "waiting": N_("{system} is not answering: I will try again shortly."),
    # The library layout.
    "import.done": N_("In the library as {folder}."),
    "import.done_copied": N_(
        "In the library as {folder} (copied: the library is on another file system than "
        "the downloads)."
    ),
    "import.error": N_(
        "It could not be put in the library because of an error in jellybit: press Retry; "
        "the download's page has the details."
    ),
    "import.merged": N_("Added {what} to {folder}."),
    "import.version": N_("In the library as {folder}, beside the copy it had: {label}."),
    "import.replaced": N_("In the library as {folder}, in place of the copy it had."),
    "import.kept": N_("Not added: the library already has it in {folder}."),
    "layout.in_library": N_(
        "The library already has {target} (from “{other}”). Keep both, replace it, or skip "
        "this copy."
    ),
    "layout.library_full": N_("The library folder {folder} is full: free space, then press Retry."),
    "layout.not_writable": N_(
        "jellybit may not write to the library folder {folder}: give it write access, then "
        "press Retry."
    ),
    "layout.quota": N_(
        "jellybit's disk quota for the library folder {folder} is used up: free space or raise "
        "the quota, then press Retry."
    ),
    "layout.read_only": N_(
        "The library folder {folder} is on a read-only disk: make it writable, then press Retry."
    ),
    "layout.locked": N_(
        "The library folder {folder} is locked against changes: unlock it, then press Retry."
    ),
    "layout.link_refused": N_(
        "The system would not hardlink {source} into the library folder {folder}: the folder "
        "is locked, or the file is not jellybit's own. Fix that, then press Retry."
    ),
    "layout.duplicate": N_("{first} and {second} would both become {target}."),
    "layout.not_a_name": N_("{name} is not a file name."),
    "layout.outside_download": N_("{name} points outside the download."),
    "layout.outside_library": N_("{target} is outside the library {root}."),
    "layout.missing": N_("{name} is no longer on the disk ({path}): press Download again."),
    "layout.unreadable": N_("{name} cannot be read ({path})."),
    "layout.not_a_file": N_("{name} is not a regular file ({path})."),
    "layout.conflict": N_("{target} already exists and is a different file; it was left as it is."),
    "layout.cannot_write": N_("Could not write in {folder}."),
    "layout.cannot_place": N_("Could not put {source} at {target}."),
    "layout.cross_device": N_(
        "Cannot hardlink across file systems: the download {source} is on {source_fs}; "
        'the library path {target} is on {target_fs}. Set library.cross_device = "copy" '
        "to copy such files, or put the library on the same file system as the downloads."
    ),
    # Refusals of what a person sent: what is wrong, in the person's words.
    "magnet.not_a_link": N_("This is not a magnet link."),
    "magnet.too_long": N_("This link is too long to be a magnet link (over 8 KB)."),
    "magnet.bad_btih": N_("This link has no valid torrent hash: it looks cut off."),
    "magnet.bad_btmh": N_("This link's torrent hash is damaged: it looks cut off."),
    "magnet.no_infohash": N_("This magnet link does not say which torrent it is: it has no hash."),
    "magnet.several": N_("This link names several torrents: send one link per torrent."),
    "magnet.mismatched": N_(
        "This link names two different torrents at once: send the link of one of them."
    ),
    "torrent.too_large": N_("This file is too large to be a .torrent file (over 10 MB)."),
    "torrent.not_fetched": N_("Telegram did not give me the file: send it once more."),
    "torrent.too_deep": N_("This .torrent file is damaged: it is nested too deep."),
    "torrent.not_bencode": N_("This is not a .torrent file, or it is damaged."),
    "torrent.not_canonical": N_(
        "This .torrent file is written in a non-standard way: its hash cannot be computed exactly."
    ),
    "torrent.no_info": N_("This .torrent file is damaged: it does not describe any content."),
    "torrent.no_pieces": N_("This .torrent file is damaged: it has no checksums of its content."),
    "torrent.bad_pieces": N_("This .torrent file is damaged: its checksums are broken."),
    "torrent.bad_file_list": N_("This .torrent file is damaged: its list of files is broken."),
    "torrent.bad_file_tree": N_("This .torrent file is damaged: its folder tree is broken."),
    "torrent.no_files": N_("This .torrent file has no files in it."),
    "torrent.too_many_files": N_(
        "This torrent has more than {limit} files: too many for a media library."
    ),
    "torrent.bad_length": N_("This .torrent file is damaged: a file size in it is wrong."),
    "torrent.too_much_content": N_(
        "This torrent claims more than 1 PB of content: it is not real."
    ),
    "torrent.no_name": N_("This .torrent file is damaged: the torrent has no name."),
    # Search: what a source said (docs/search.md). {source} is the configured name.
    "search.bad_api_key": N_("{source}: the API key was refused."),
    "search.rate_limited": N_("{source} asks to wait {duration} before it is asked again."),
    "search.disabled": N_("{source}: the indexer is disabled."),
    "search.blocked": N_(
        "{source} answered with a web page instead of results: the indexer is blocked or "
        "asks for a login."
    ),
    "search.unreachable": N_("{source} is not answering."),
    "search.timeout": N_("{source} did not answer within {duration}."),
    "search.error": N_("{source} answered with an error."),
    "search.unreadable": N_("{source} answered something that is not a list of releases."),
    "search.qbt_busy": N_(
        "qBittorrent's search cannot start: Python is missing for its search plugins, or "
        "five searches already run."
    ),
    "search.qbt_no_plugins": N_("qBittorrent has no search plugin enabled."),
    "search.gone": N_("This release is gone: pick another."),
    "search.not_a_torrent": N_(
        "The release's link gave neither a magnet link nor a .torrent file."
    ),
}


@dataclass(frozen=True)
class Reason:
    code: str
    params: Mapping[str, Value] = field(default_factory=dict)

    def dumps(self) -> str:
        return json.dumps({"code": self.code, **self.params}, ensure_ascii=False, sort_keys=True)

    @classmethod
    def loads(cls, text: str | None) -> "Reason | None":
        if not text:
            return None
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("code"), str):
            return cls("text", {"text": text})
        params = {
            key: value
            for key, value in data.items()
            if key != "code" and isinstance(value, str | int | float)
        }
        return cls(data["code"], params)

    def english(self) -> str:
        """The reason in English with its detail: logs, the API, ``str()`` of an error."""
        if self.code == "text" or self.code not in TEMPLATES:
            return str(self.params.get("text", self.code))
        values: dict[str, object] = dict(self.params)
        if "confidence" in self.params:
            values["percent"] = round(float(self.params["confidence"]) * 100)
        if "seconds" in self.params:
            values["duration"] = format_duration(float(self.params["seconds"]))
        for key in self.params:
            if key.endswith(SIZE_SUFFIX):
                values[key.removesuffix(SIZE_SUFFIX)] = _size(float(self.params[key]))
        sentence = fill(TEMPLATES[self.code], values)
        detail = self.detail()
        return f"{sentence} ({detail})" if detail else sentence

    def detail(self) -> str:
        """What another system said, verbatim ("Fails.", "[Errno 13] Permission
        denied"): shown as a detail on the card, never in the chat."""
        return "; ".join(str(self.params[key]) for key in DETAILS if self.params.get(key))


SIZE_SUFFIX = "_bytes"


def _size(size: float) -> str:
    """Bytes in binary multiples as English reads them: "58.2 GB"."""
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024:
            return f"{size:.0f} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TB"


def reason(code: str, **params: Value) -> Reason:
    if code not in TEMPLATES:
        raise ValueError(f"unknown reason code {code!r}")
    return Reason(code, params)


def text_reason(text: str) -> Reason:
    """Words that have no code (another system's message): shown as they are."""
    return Reason("text", {"text": text})


class _Keep(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, values: Mapping[str, object]) -> str:
    """``template`` with its placeholders filled; a missing value stays visible
    as ``{name}`` instead of raising (a row written by another version)."""
    return template.format_map(_Keep(values))
