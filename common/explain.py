"""Why jellybit decided what it did, in the reader's language.

A recognition's reason is a code (``core.reasons``): why a title was accepted on
its own or why the person is asked. Each candidate's evidence
(``core.evidence.Evidence``) reads as one line: "✓ same title · ✓ same year ·
✓ has these episodes · 12× as popular".
"""

from babel.numbers import format_decimal

from common.i18n import Texts
from core.evidence import Evidence
from core.reasons import Reason


def reason_text(tx: Texts, reason: Reason | None) -> str:
    """The reason as a sentence; stored English text (before codes) is translated
    when the catalogue has it."""
    if reason is None:
        return ""
    params = reason.params
    if reason.code == "text":
        return tx.plain(str(params.get("text", "")))
    percent = round(float(params.get("confidence", 0) or 0) * 100)
    texts = {
        "auto.identifier": lambda: tx.plain("Picked on its own: the release names its id."),
        "auto.only": lambda: tx.plain("Picked on its own: the only title that matches the name."),
        "auto.year": lambda: tx.plain("Picked on its own: the year in the name matches."),
        "auto.country": lambda: tx.plain("Picked on its own: the country in the name matches."),
        "auto.seasons": lambda: tx.plain(
            "Picked on its own: only it has these seasons and episodes."
        ),
        "auto.popularity": lambda: tx.plain(
            "Picked on its own: far more watched than the other titles of that name."
        ),
        "auto.local": lambda: tx.plain("Named after the torrent: no metadata provider is set."),
        "review.nothing": lambda: tx.plain("Nothing in the metadata matches “{title}”.").format(
            title=params.get("title", "")
        ),
        "review.contradicted": lambda: tx.plain(
            "Every title found contradicts the name: another year, country, or seasons it "
            "does not have."
        ),
        "review.weak": lambda: tx.plain("No title matches the name well enough."),
        "review.ambiguous": lambda: tx.plain(
            "Several titles match equally well: pick the right one."
        ),
        "review.unsure": lambda: tx.plain(
            "The best match is not certain enough ({percent} %)."
        ).format(percent=percent),
        "review.no_title": lambda: tx.plain("Could not tell what this is from its name."),
        "review.no_year": lambda: tx.plain("A movie without a year: pick or correct the title."),
        "review.episode_unknown": lambda: tx.plain(
            "The episode of {file} is unknown: it is not placed under a guess."
        ).format(file=params.get("file", "")),
        "picked": lambda: tx.plain("Picked by you."),
        "import.error": lambda: tx.plain(
            "It could not be put in the library ({detail}). Fix that, then press Retry."
        ).format(detail=params.get("detail", "")),
        "waiting": lambda: tx.plain("{system} did not answer ({detail}); retrying.").format(
            system=params.get("system", ""), detail=params.get("detail", "")
        ),
    }
    render = texts.get(reason.code)
    return render() if render is not None else reason.code


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
    if evidence.identifier:
        parts.append("✓ " + tx.plain("the id in the release"))
    if evidence.ratio is not None and evidence.ratio >= 2:
        ratio = format_decimal(evidence.ratio, format="#,##0.#", locale=tx.language)
        parts.append(tx.plain("{n}× as popular").format(n=ratio))
    return " · ".join(parts)
