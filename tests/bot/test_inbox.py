"""The inbox never goes deaf: updates it cannot read are set aside (their chat told),
bodies that are not updates are refused at the webhook, ids Telegram reuses are new
updates, Telegram's 429s at start are waited out, a burst is answered once each, and
what goes back fits Telegram's limits."""

import json
import secrets
from pathlib import Path

import aiohttp
from structlog.testing import capture_logs

from bot.app import webhook_secret
from core.models import NewDownload
from core.reasons import reason
from core.states import State
from recognition.candidates import Evidence
from recognition.identify import Status
from store.migrate import migrate
from store.recognition import StoredCandidate
from tests.bot.conftest import ALICE, SECRET, Door
from tests.support.candidates import stored
from tests.support.telegram import FakeTelegram, FakeUser, Message
from tests.web.test_library_pages import a_library

WITHIN = 2.0


async def answer_after(person: FakeUser, sent: Message, within: float = WITHIN) -> Message:
    return await person.wait_for(
        lambda m: m.from_bot and m.message_id > sent.message_id, timeout=within
    )


async def outcomes(door: Door) -> list[tuple[int, str | None]]:
    rows = await door.store.db.reader.execute_fetchall(
        "SELECT update_id, outcome FROM inbox ORDER BY id", {}
    )
    return [(row[0], row[1]) for row in rows]


async def test_an_update_aiogram_cannot_read_is_set_aside_and_its_chat_told(
    door: Door, tg: FakeTelegram
) -> None:
    alice = tg.user(ALICE, language_code="en")
    await answer_after(alice, await alice.send_text("/help"), within=10)
    message = {"message_id": 77, "date": "yesterday", "chat": alice.chat.to_json()}
    with capture_logs() as logs:
        odd = tg.queue_update("message", message | {"from": alice.to_json(), "text": "hi"})
        apology = await alice.wait_for(lambda m: "could not handle" in m.text, timeout=10)
    assert apology.from_bot
    assert (odd, "set_aside") in await outcomes(door)
    aside = [e for e in logs if e["event"] == "telegram.update_set_aside"]
    assert len(aside) == 1  # logged once, with the update and its kind
    assert (aside[0]["update_id"], aside[0]["kind"]) == (str(odd), "message")
    await answer_after(alice, await alice.send_text("/help"))


async def test_a_webhook_body_that_is_not_an_update_is_a_400(
    webhook_door: Door, tg: FakeTelegram
) -> None:
    assert tg.webhook_target is not None
    deep: object = {"text": "x"}
    for _ in range(200):
        deep = {"reply_to_message": deep}
    bodies = [
        b"not json",
        b"[1, 2]",
        json.dumps({"update_id": -1, "message": {}}).encode(),
        json.dumps({"update_id": 2**40, "message": {"text": "x"}}).encode(),
        json.dumps({"update_id": 1, "message": {"chat": {"id": 10**30}}}).encode(),
        json.dumps({"update_id": 1}).encode(),
        json.dumps({"update_id": 1, "message": deep}).encode(),
        b'{"update_id": 1, "message": {"x": NaN}}',
        b"[" * 100_000 + b"]" * 100_000,
    ]
    headers = {"X-Telegram-Bot-Api-Secret-Token": webhook_secret(SECRET)}
    async with aiohttp.ClientSession() as session:
        for body in bodies:
            async with session.post(tg.webhook_target, data=body, headers=headers) as response:
                assert response.status == 400, body[:80]
    assert await outcomes(webhook_door) == []


async def test_an_id_telegram_hands_out_again_is_a_new_update(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    """A restarted sandbox server, a new bot token, a week without updates: the ids start
    again. Last run's handled updates are in the inbox, yet the new ones are answered."""
    path = tmp_path / "jellybit.db"
    migrate(path)
    first = Door(tg, path)
    await first.start()
    alice = tg.user(ALICE, language_code="en")
    await answer_after(alice, await alice.send_text("/help"), within=10)
    await first.halt()
    async with FakeTelegram() as again:  # numbers its updates from the same start
        second = Door(again, path)
        await second.start()
        try:
            bob = again.user(ALICE, language_code="en")
            await answer_after(bob, await bob.send_text("/list"), within=10)
            ids = [update_id for update_id, _ in await outcomes(second)]
            assert ids[0] == ids[1]  # the same id, two updates
        finally:
            await second.halt()


async def test_429s_at_start_are_waited_out_however_long(tg: FakeTelegram, tmp_path: Path) -> None:
    path = tmp_path / "jellybit.db"
    migrate(path)
    tg.fail_next("deleteWebhook", retry_after=6)  # longer than a wait in place
    tg.fail_next("deleteWebhook", retry_after=1, times=3)  # and four in a row
    door = Door(tg, path)
    await door.start()
    try:
        alice = tg.user(ALICE, language_code="en")
        await answer_after(alice, await alice.send_text("/help"), within=20)
        assert [c.status for c in tg.calls_to("deleteWebhook")] == [429, 429, 429, 429, 200]
        assert door.restarts() == {}
    finally:
        await door.halt()


async def test_a_burst_in_one_chat_is_answered_once_each(
    polling_door: Door, tg: FakeTelegram
) -> None:
    alice = tg.user(ALICE, language_code="en")
    magnets = [f"magnet:?xt=urn:btih:{secrets.token_hex(20)}&dn=Burst.{n}" for n in range(30)]
    sent = [await alice.send_text(magnet) for magnet in magnets]
    last = sent[-1].message_id
    await alice.wait_for(lambda m: m.from_bot and m.reply_to_message_id == last, timeout=20)
    await answer_after(alice, await alice.send_text("/help"), within=10)
    for message in sent:
        replies = [m for m in alice.bot_messages() if m.reply_to_message_id == message.message_id]
        assert [r.text.split("\n")[0] for r in replies] == [f"✅ Burst.{sent.index(message)}"]


async def test_a_refused_retry_fits_the_answer_of_a_press(
    polling_door: Door, tg: FakeTelegram
) -> None:
    """The refusal names the other download, whose name may be thousands of characters:
    Telegram takes 200 in a button's answer."""
    store = polling_door.store
    infohash = secrets.token_hex(20)
    old = NewDownload(name="Old.Copy", origin="telegram", source_ref="", chat_id=ALICE)
    failed = (await store.downloads.create_download_if_no_active(old, [infohash])).download
    await store.downloads.move(failed.id, State.FAILED, reason=reason("qbt.refused", detail="x"))
    owner = NewDownload(name="Ш" * 3000, origin="api", source_ref="")
    await store.downloads.create_download_if_no_active(owner, [infohash])
    alice = tg.user(ALICE, language_code="ru")
    sent = await alice.send_text(f"/status {failed.id}")
    status = await answer_after(alice, sent, within=10)
    answer = await alice.press(status, "Повторить")
    assert answer.text is not None
    assert answer.text.startswith("Не получилось: этот же торрент уже качается")
    assert len(answer.text) <= 200
    assert (await store.downloads.get_download(failed.id)).state == State.FAILED


async def test_bidi_controls_in_a_name_do_not_reach_the_chat(
    polling_door: Door, tg: FakeTelegram
) -> None:
    alice = tg.user(ALICE, language_code="en")
    spoof = "Movie.\u202egnp.exe\u202c.2021"
    sent = await alice.send_text(f"magnet:?xt=urn:btih:{secrets.token_hex(20)}&dn={spoof}")
    reply = await answer_after(alice, sent, within=10)
    assert "Movie.gnp.exe.2021" in reply.text
    assert not {"\u202e", "\u202c"} & set(reply.text)


async def test_library_answers_with_a_button_to_each_matching_title(
    door: Door, tg: FakeTelegram
) -> None:
    dark, _ = await a_library(door.store)
    alice = tg.user(ALICE, language_code="ru")
    found = await answer_after(alice, await alice.send_text("/library dar"), within=10)
    assert found.text.startswith("В библиотеке · dar")
    assert found.button_texts == ["Dark (2017)"]
    assert f"/title/{dark}?t=" in (found.buttons[0][0].url or "")
    none = await answer_after(alice, await alice.send_text("/library <b>x</b>"))
    assert none.text == "В библиотеке нет ничего по «<b>x</b>»."  # escaped, shown as typed


async def test_a_review_the_library_asks_is_answered_on_the_card_not_by_a_pick(
    door: Door, tg: FakeTelegram
) -> None:
    """ "The library already has it" is a review too, but the title is right: the
    notification offers the card (keep both, replace, skip there), not candidates."""
    store = door.store
    alice = tg.user(ALICE, language_code="en")
    await answer_after(alice, await alice.send_text("/help"), within=10)
    made = NewDownload(name="Dune.2160p", origin="telegram", source_ref="", chat_id=ALICE)
    download = (
        await store.downloads.create_download_if_no_active(made, [secrets.token_hex(20)])
    ).download
    await store.recognitions.save(
        download.id, kind="movie", title="Dune", year=2021, season=None, status=Status.AUTO,
        reason=reason("auto.year"), files=[], candidates=[a_candidate()],
    )  # fmt: skip
    for state in (State.DOWNLOADING, State.IMPORTING):
        await store.downloads.move(download.id, state, reason=reason("qbt.seen"))
    asked = reason("layout.in_library", target="/media/movies/Dune/Dune.mkv", other="Dune.1080p")
    await store.downloads.move(download.id, State.REVIEW, reason=asked, announce=True)
    door.door.notifier.wake.set()
    notice = await alice.wait_for(lambda m: m.from_bot and "already has" in m.text, timeout=10)
    assert "Dune (2021)" not in notice.button_texts  # no candidate to pick
    assert "Open" in notice.button_texts


def a_candidate() -> StoredCandidate:
    return stored(
        "438631", "Dune", 2021, selected=True, evidence=Evidence("exact", "Dune", "exact")
    )


async def test_a_429_on_set_webhook_at_start_still_ends_with_answers(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    path = tmp_path / "jellybit.db"
    migrate(path)
    tg.fail_next("setWebhook", retry_after=10)
    door = Door(tg, path, mode="webhook")
    await door.start()
    try:
        alice = tg.user(ALICE, language_code="en")
        await answer_after(alice, await alice.send_text("/help"), within=25)
        assert [c.status for c in tg.calls_to("setWebhook")] == [429, 200]
        assert door.restarts() == {}
    finally:
        await door.halt()
