"""Why jellybit decided what it did, in the reader's language.

A recognition's reason is a code (``core.reasons``): why a title was accepted on
its own or why the person is asked. Each candidate's evidence
(``recognition.candidates.Evidence``) reads as one line: "✓ same title · ✓ same year ·
✓ has these episodes · 12× as popular".
"""

from collections.abc import Mapping

from babel.numbers import format_decimal

from common.formatting import duration_text, size_text
from common.i18n import Texts
from core.reasons import SIZE_SUFFIX, TEMPLATES, Reason, Value, fill
from recognition.candidates import Evidence


def reason_text(tx: Texts, reason: Reason | None) -> str:
    """The reason as a sentence in the reader's language. Stored English text
    without a code (an older row, another system's words) is translated when the
    catalogue has it, and shown as it is otherwise."""
    if reason is None:
        return ""
    if reason.code == "text" or reason.code not in TEMPLATES:
        words = str(reason.params.get("text", reason.code))
        return tx.plain(words) if words else ""  # gettext("") is the catalogue's header
    return fill(tx.plain(TEMPLATES[reason.code]), _shown(tx, reason.params))


SYSTEMS = {"qbittorrent": "qBittorrent", "tmdb": "TMDB", "jellyfin": "Jellyfin"}


def _shown(tx: Texts, params: Mapping[str, Value]) -> dict[str, object]:
    """Parameters as the reader reads them: numbers in their locale, a
    confidence as a percentage, seconds as a duration, systems by their name."""
    shown: dict[str, object] = {
        key: format_decimal(value, locale=tx.language)
        if isinstance(value, int | float) and not isinstance(value, bool)
        else value
        for key, value in params.items()
    }
    if "confidence" in params:
        shown["percent"] = round(float(params["confidence"]) * 100)
    if "seconds" in params:
        shown["duration"] = duration_text(tx, float(params["seconds"]))
    for key, value in params.items():
        if key.endswith(SIZE_SUFFIX):
            shown[key.removesuffix(SIZE_SUFFIX)] = size_text(tx, float(value))
    if "system" in params:
        shown["system"] = SYSTEMS.get(str(params["system"]), params["system"])
    return shown


def evidence_line(tx: Texts, evidence: Evidence | None, title: str) -> str:
    """One line: what speaks for (✓) and against (✗) a candidate."""
    if evidence is None:
        return ""
    titles = {
        "exact": "✓ " + tx.plain("same title"),
        "close": "✓ " + tx.plain("nearly the same title"),
        "partial": "~ " + tx.plain("the title only contains the name"),
        "weak": "✗ " + tx.plain("another title"),
    }
    parts = [titles[evidence.title]]
    if evidence.title != "weak" and evidence.matched and evidence.matched != title:
        parts[0] += f" ({evidence.matched})"
    years = {
        "exact": "✓ " + tx.plain("same year"),
        "near": "✓ " + tx.plain("the year ±1"),
        "season": "✓ " + tx.plain("the year of a season"),
        "told": "✓ " + tx.plain("the year its description gives"),
        "far": "✗ " + tx.plain("another year"),
        "unknown": "~ " + tx.plain("no year in the metadata"),
    }
    if evidence.year in years:
        parts.append(years[evidence.year])
    if evidence.country == "match":
        parts.append("✓ " + tx.plain("the country"))
    elif evidence.country == "mismatch":
        parts.append("✗ " + tx.plain("another country"))
    if evidence.seasons == "fit":
        parts.append("✓ " + tx.plain("has these episodes"))
    elif evidence.misfit == "movie":
        parts.append("✗ " + tx.plain("a movie, not a series"))
    elif evidence.seasons == "misfit":
        parts.append("✗ " + tx.plain("has no {what}").format(what=evidence.misfit or ""))
    if evidence.short:
        parts.append("~ " + tx.plain("far fewer episodes than its season"))
    if evidence.unexplained:
        parts.append("✗ " + tx.plain("not explained: {words}").format(words=evidence.unexplained))
    if evidence.season_words:
        parts.append(
            "~ " + tx.plain("no season is named {words}").format(words=evidence.season_words)
        )
    if evidence.season is not None:
        parts.append("✓ " + tx.plain("the name says season {n}").format(n=evidence.season))
    if evidence.language == "match":
        parts.append("✓ " + tx.plain("the language"))
    elif evidence.language == "other":
        parts.append("~ " + tx.plain("another original language"))
    if evidence.aired == "match":
        parts.append("✓ " + tx.plain("aired on that day"))
    elif evidence.aired == "mismatch":
        parts.append("✗ " + tx.plain("not on air that day"))
    if evidence.episode_named:
        parts.append("✓ " + tx.plain("the episode's name"))
    if evidence.service:
        parts.append("✓ " + tx.plain("the streaming service"))
    if evidence.genre:
        parts.append("✓ " + tx.plain("the kind of work (anime, documentary…)"))
    if evidence.off_air:
        parts.append("~ " + tx.plain("off the air when the recording was made"))
    if evidence.identifier:
        parts.append("✓ " + tx.plain("the id in the release"))
    if evidence.ratio is not None and evidence.ratio >= 2:
        ratio = format_decimal(evidence.ratio, format="#,##0.#", locale=tx.language)
        parts.append(tx.plain("{n}× as popular").format(n=ratio))
    return " · ".join(parts)
