"""What the bot says, rendered from the domain (every string goes through Texts)."""

import html
import re
from collections.abc import Callable, Mapping

from common.explain import reason_text
from common.formatting import duration_text, progress_text, size_text
from common.i18n import Raw, Texts, state_labels
from core import clock
from core.display import without_bidi_controls
from core.models import Download
from core.notifications import QBITTORRENT_DOWN
from core.reasons import N_, Reason
from core.states import State

BAR_CELLS = 10

NAME_CHARS = 200  # of a torrent's name in a message (the card shows it whole)
MESSAGE_CHARS = 4096
_TAGS = re.compile(r"<[^>]*>")
REASON_CHARS = 600  # of a reason (a layout error names two paths)


def display_name(download: Download) -> str:
    """The torrent's name, or its first hash before qBittorrent knows the name; a long
    one cut with an ellipsis, so that every message fits Telegram's 4096 characters."""
    name = download.name or (download.infohashes[0].value if download.infohashes else download.id)
    return shorten(name, NAME_CHARS)


def shorten(text: str, limit: int) -> str:
    """Text from outside, fit to show: bidi controls dropped, cut to ``limit``."""
    text = without_bidi_controls(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def fit_message(html_text: str) -> str:
    """A message's HTML within Telegram's 4 096 characters: every part is shortened
    where it is made, so this only guards; past the limit it becomes plain text, cut."""
    plain = html.unescape(_TAGS.sub("", html_text))
    if len(plain) <= MESSAGE_CHARS:
        return html_text
    return html.escape(shorten(plain, MESSAGE_CHARS), quote=False)


def state_label(tx: Texts, state: State) -> str:
    return state_labels(tx)[state]


def progress_bar(progress: float) -> str:
    filled = max(0, min(BAR_CELLS, int(progress * BAR_CELLS)))
    return "▓" * filled + "░" * (BAR_CELLS - filled)


def status_text(tx: Texts, download: Download) -> str:
    """The status message of a download: what happened, what happens next."""
    icon, lines = STATUS[download.state]
    head = f"{icon} <b>{html.escape(display_name(download), quote=False)}</b>"
    return head + "\n" + lines(tx, download)


def _accepted(tx: Texts, download: Download) -> str:
    if download.error is not None:
        return "⏳ " + _why(tx, download)  # qBittorrent is not answering yet
    return tx("Accepted. Sending it to qBittorrent, I will tell you when it is ready.")


def _transferring(tx: Texts, download: Download) -> str:
    return (
        _progress_line(tx, download)
        + _short_of_space(tx, download)
        + _trouble(tx, download)
        + _not_started(tx, download)
    )


def _state_and_reason(tx: Texts, download: Download) -> str:
    return tx("{state}: {reason}", state=state_label(tx, download.state), reason=_why(tx, download))


def _progress_line(tx: Texts, download: Download) -> str:
    return f"{progress_bar(download.progress)} {progress_text(tx, download)}"


def _short_of_space(tx: Texts, download: Download) -> str:
    """Under the bar while the rest does not fit on qBittorrent's disk (the poller
    keeps ``free_space`` only then): Cancel is the button beside it."""
    if download.state != State.DOWNLOADING or download.free_space is None:
        return ""
    needed = round((download.total_size or 0) * (1 - download.progress))
    words = tx(
        "⚠️ Not enough space: needs {needed}, {free} free",
        needed=size_text(tx, needed),
        free=size_text(tx, download.free_space),
    )
    return "\n" + words


def _trouble(tx: Texts, download: Download) -> str:
    if download.state != State.STUCK:
        return ""
    return "\n" + tx("Stuck: {reason}", reason=_why(tx, download))


# What qBittorrent is doing with a torrent that has no data yet, in a person's words.
_WAITING = {
    "metaDL": N_("Waiting for the list of files from peers: {duration} so far."),
    "forcedMetaDL": N_("Waiting for the list of files from peers: {duration} so far."),
    "queuedDL": N_("Queued in qBittorrent behind other downloads: {duration} so far."),
    "stalledDL": N_("Stalled: no peer sends anything, {duration} so far."),
    "pausedDL": N_("Paused in qBittorrent: {duration} so far."),
    "stoppedDL": N_("Paused in qBittorrent: {duration} so far."),
    "checkingDL": N_("qBittorrent is checking the files: {duration} so far."),
    "checkingResumeData": N_("qBittorrent is checking the files: {duration} so far."),
    "allocating": N_("qBittorrent is reserving disk space: {duration} so far."),
}
_NO_PEERS = N_("No peers to download from yet: {duration} so far.")


def _not_started(tx: Texts, download: Download) -> str:
    """Why a download is still at 0 %, and how long it has waited."""
    if download.state != State.DOWNLOADING or download.progress > 0:
        return ""
    template = _WAITING.get(download.qbt_state or "")
    if template is None and download.download_speed:
        return ""  # data is coming: the progress line says it
    try:  # since it last (re)entered downloading: a Retry starts the clock anew
        since = clock.parse_time(download.progress_at or download.created_at)
    except ValueError:
        return ""
    waited = (clock.parse_time(clock.now()) - since).total_seconds()
    # Whole minutes: the message is edited when its text changes, not every few seconds.
    minutes = max(1, int(waited // 60))
    return "\n⏳ " + tx(template or _NO_PEERS, duration=duration_text(tx, minutes * 60))


def _why(tx: Texts, download: Download) -> str:
    return shorten(reason_text(tx, download.error), REASON_CHARS) or "—"


# The status message in each state: the icon before the name, the lines under it.
STATUS: dict[State, tuple[str, Callable[[Texts, Download], str]]] = {
    State.ACCEPTED: ("✅", _accepted),
    State.DOWNLOADING: ("⬇️", _transferring),
    State.STUCK: ("⚠️", _transferring),  # the bar, and why it is stuck
    State.REVIEW: ("🤔", lambda tx, _: tx("Downloaded. Waiting for you to pick the title.")),
    State.IMPORTING: ("📦", lambda tx, _: tx("Downloaded. Putting it into the library…")),
    State.DONE: ("🎬", lambda tx, _: tx("Done: it is in the library.")),
    State.FAILED: ("❌", _state_and_reason),
    State.REMOVED: ("🗑", _state_and_reason),
}


def duplicate_text(tx: Texts, download: Download) -> str:
    return tx(
        "↩️ Already here: {name} — {state}, {percent}%",
        name=display_name(download),
        state=state_label(tx, download.state),
        percent=round(download.progress * 100),
    )


def in_library_text(tx: Texts, download: Download, title: str, year: int | None) -> str:
    """The answer to a torrent sent again whose files are all in the library."""
    return "\n".join(
        [
            tx("📚 Already in the library: {title}", title=title_label(title, year)),
            tx("Nothing is downloaded again: all its files are already in the library."),
            f"<i>{html.escape(display_name(download), quote=False)}</i>",
        ]
    )


def rejected_text(tx: Texts, reason: Reason) -> str:
    """What is wrong with what the person sent, and what would work."""
    if reason.code.startswith("torrent."):
        what_works = tx("Send another .torrent file, or the magnet link.")
    else:
        what_works = tx("Copy the whole magnet link, or send the .torrent file.")
    return tx("❌ {reason}", reason=shorten(reason_text(tx, reason), 1000)) + "\n" + what_works


def help_text(tx: Texts) -> str:
    return "\n".join(
        [
            tx(
                "Send me a magnet link or a .torrent file: I add it to qBittorrent, follow it and put the finished files into the Jellyfin library."
            ),
            tx(
                "Several links in one message work; the rest of the text is a hint for recognition (for example: Dune 2021)."
            ),
            tx("Reply to my message about a download to add a hint to it."),
            "",
            tx(
                "Buttons: Open — the download's page; Cancel — stop and delete it; Retry — try a stuck or failed one again; Relink — put a finished one's files into the library again."
            ),
            commands_text(tx),
        ]
    )


def commands_text(tx: Texts) -> str:
    return tx(
        "Commands: /find WORDS — find a film or a show to download, /list — active downloads, /status — one download, /library WORDS — titles in the library, /help — this help."
    )


def unknown_command_text(tx: Texts, command: str) -> str:
    """A command the bot does not have: said so, with the ones it has."""
    return (
        tx("I do not know the command {command}.", command=shorten(command, 40))
        + "\n"
        + commands_text(tx)
    )


def library_text(tx: Texts, words: str, names: list[str], *, more: bool) -> str:
    """The answer to /library: how many titles match, or what to type."""
    if not names:
        if not words:
            return tx("The library is empty so far.")
        return tx(
            "Nothing in the library matches “{words}”.",
            words=shorten(words, 60),
        )
    head = tx("<b>In the library</b>")
    if words:
        head += " · " + html.escape(shorten(words, 60), quote=False)
    tail = "\n" + tx("More match: add a word.") if more else ""
    return head + tail


def no_magnet_text(tx: Texts) -> str:
    return (
        tx("I did not find a magnet link here.")
        + "\n"
        + tx("Send a magnet link or a .torrent file; /help explains more.")
    )


def list_line(tx: Texts, number: int, download: Download) -> str:
    """ "3. Some.Movie — downloading, 62%": one download in a list."""
    return tx(
        "{number}. {name} — {state}, {percent}%",
        number=number,
        name=display_name(download),
        state=state_label(tx, download.state),
        percent=round(download.progress * 100),
    )


def list_text(
    tx: Texts,
    downloads: list[Download],
    *,
    first: int = 1,
    total: int = 0,
    finished: list[Download] | None = None,
) -> str:
    """/list: the active downloads; with none, the latest ``finished`` ones."""
    if not downloads:
        lines = [tx("Nothing is downloading now.")]
        if finished:
            lines.append(tx("<b>Finished lately</b>"))
            lines += [
                f"{number}. {html.escape(display_name(d), quote=False)} — "
                + html.escape(state_label(tx, d.state), quote=False)
                for number, d in enumerate(finished, start=1)
            ]
        lines.append(tx("Everything in the library: /library."))
        return "\n".join(lines)
    lines = [tx("<b>Active downloads</b>")]
    if total > len(downloads):
        lines[0] += " " + tx(
            "({first}–{last} of {total})", first=first, last=first + len(downloads) - 1, total=total
        )
    for number, download in enumerate(downloads, start=first):
        lines.append(list_line(tx, number, download) + "\n" + progress_bar(download.progress))
    return "\n".join(lines)


# The first line of ``outcome_text``, in the states a message shows that way.
OUTCOME_HEAD: dict[State, str] = {
    State.REVIEW: N_("🤔 Downloaded: {name}"),
    State.DONE: N_("🎬 Done: {name}"),
    State.FAILED: N_("❌ Failed: {name}"),
    State.REMOVED: N_("🗑 Removed: {name}"),
}


def outcome_text(tx: Texts, download: Download, why: Reason | None) -> str:
    """A download that is done, failed, removed or waits for the person, in two lines:
    what happened to it, and why (``why``: the reason of its move into that state)."""
    head = tx(OUTCOME_HEAD[download.state], name=display_name(download))
    reason = shorten(reason_text(tx, why), REASON_CHARS)
    if download.state == State.REVIEW and why is not None and not why.code.startswith("review."):
        # Not which title it is, but what to do with its files (open the card).
        return head + "\n" + html.escape(reason, quote=False)
    if download.state == State.REVIEW:
        return head + "\n" + tx("I am not sure what it is: pick the title.")
    if download.state == State.DONE:
        return head + "\n" + html.escape(reason, quote=False)
    return head + "\n" + tx("Reason: {reason}", reason=reason)


def system_text(tx: Texts, kind: str, payload: Mapping[str, object]) -> str:
    """A notification about jellybit itself (``core.notifications.SYSTEM``)."""
    if kind == QBITTORRENT_DOWN:
        return (
            tx("⏳ qBittorrent has not answered for over a minute.")
            + "\n"
            + tx("Your links are kept: I add them once it is back.")
        )
    seconds = max(60.0, float(str(payload.get("seconds", 0))))
    return tx(
        "✅ qBittorrent is back (it did not answer for {duration}).",
        duration=duration_text(tx, seconds),
    )


def hint_added_text(tx: Texts, download: Download, hint: str) -> str:
    return tx("📝 Hint for {name}: {hint}", name=display_name(download), hint=shorten(hint, 1000))


def unhandled_text(tx: Texts) -> str:
    return tx("❌ I could not handle this message. Please send it again.")


def refusal_text(tx: Texts, user_id: int) -> str:
    return tx(
        "Sorry, this is a private bot. Your Telegram id is {user_id}: the owner can add it to telegram.allowed_users.",
        user_id=user_id,
    )


def outdated_text(tx: Texts) -> str:
    return tx.plain("This button is outdated — here is the current state.")


def not_found_text(tx: Texts) -> str:
    return tx("No download with this id.")


def recent_text(tx: Texts, downloads: list[Download]) -> str:
    """/status without an id: the recent downloads to pick from."""
    if not downloads:
        return tx("There are no downloads yet: send a magnet link or a .torrent file.")
    lines = [tx("Which download? The recent ones:")]
    lines += [list_line(tx, number, d) for number, d in enumerate(downloads, start=1)]
    return "\n".join(lines)


def downloaded_bytes(download: Download) -> int:
    return int((download.total_size or 0) * min(1.0, max(0.0, download.progress)))


def cancel_question_text(tx: Texts, download: Download) -> str:
    """Asked once before a Cancel deletes data already downloaded."""
    return tx(
        "Cancel {name} and delete the {size} downloaded?",
        name=display_name(download),
        size=size_text(tx, downloaded_bytes(download)),
    )


def kept_text(tx: Texts) -> str:
    return tx.plain("Not cancelled: it goes on.")


CAPTION_CHARS = 1024  # of a photo's caption
TITLE_CHARS = 60  # of a title on a button or in a caption


def fit_caption(html_text: str) -> str:
    """A caption's HTML within Telegram's 1 024 characters (as ``fit_message``)."""
    plain = html.unescape(_TAGS.sub("", html_text))
    if len(plain) <= CAPTION_CHARS:
        return html_text
    return html.escape(shorten(plain, CAPTION_CHARS), quote=False)


def title_label(title: str, year: int | None) -> str:
    """ "Dune (2021)", shortened for a button."""
    return shorten(f"{title} ({year})" if year else title, TITLE_CHARS)


def review_caption(
    tx: Texts, download: Download, title: str, year: int | None, kind: str, why: str
) -> str:
    """The review message: what was downloaded, the best candidate (title, year,
    kind) and one line of why it is asked."""
    kind_label = tx.plain("Series") if kind == "series" else tx.plain("Movie")
    best = html.escape(title_label(title, year), quote=False)
    return "\n".join(
        [
            tx("🤔 Which title is it? {name}", name=display_name(download)),
            f"<b>{best}</b> · {html.escape(kind_label, quote=False)}",
            html.escape(shorten(why, REASON_CHARS), quote=False),
            tx("Tap the right one, or Other… to search."),
        ]
    )


def done_caption(
    tx: Texts, download: Download, title: str, year: int | None, added: str, why: str
) -> str:
    """ "Done" with the plain title and year, or for a show the title and what its
    download added ("📺 Done: Dark — season 2, 8 episodes"), and where it went."""
    if added:  # made by ``seasons_added``: already HTML
        head = tx("📺 Done: {title} — {added}", title=shorten(title, TITLE_CHARS), added=Raw(added))
    else:
        head = tx("🎬 Done: {title}", title=title_label(title, year))
    lines = [head, html.escape(shorten(why, REASON_CHARS), quote=False)]
    lines.append(f"<i>{html.escape(display_name(download), quote=False)}</i>")
    return "\n".join(lines)


def seasons_added(tx: Texts, episodes: Mapping[int, int]) -> str:
    """ "season 2, 8 episodes", one part per season (season → episodes)."""
    return "; ".join(
        tx("season {season}, {episodes}", season=season, episodes=Raw(episodes_text(tx, count)))
        for season, count in sorted(episodes.items())
    )


def episodes_text(tx: Texts, count: int) -> str:
    return tx.ngettext("{n} episode", "{n} episodes", count)


def picked_caption(tx: Texts, download: Download, title: str, year: int | None) -> str:
    """The review message once a title was picked by a tap."""
    return tx(
        "✅ {title}: putting it into the library. ({name})",
        title=title_label(title, year),
        name=display_name(download),
    )


def moved_text(tx: Texts, download: Download) -> str:
    """An old message of a download that Telegram no longer lets the bot delete."""
    return tx("⤵️ {name}: its current message is further down.", name=display_name(download))


def adopted_text(tx: Texts) -> str:
    """The first line of the message of a torrent jellybit found in qBittorrent."""
    return tx("📥 Found in qBittorrent: I follow it now.")
