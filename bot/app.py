"""Building the aiogram bot and dispatcher, and running it by polling or webhook."""

import asyncio
import functools
import hashlib
import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import PRODUCTION, TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.methods import AnswerCallbackQuery, EditMessageText, GetUpdates, SendMessage
from aiogram.types import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    ReplyParameters,
    Update,
)
from aiohttp import web

from bot.handlers import routers
from bot.inbox import ALLOWED_UPDATES, UpdateInbox
from bot.links import Links
from bot.middlewares import AccessMiddleware, LanguageMiddleware
from bot.notifier import Notifier
from bot.search import SearchMessages
from bot.status import StatusUpdater
from bot.views import Views
from common.i18n import I18n
from common.logs import external_call, get_logger
from core.config import Settings, TelegramSettings
from store import Store
from worker.engine import UseCases
from worker.pacing import Loop, sleep_until
from worker.supervisor import Part

WEBHOOK_PATH = "/telegram/webhook"
REQUEST_TIMEOUT = 30  # seconds; long polling adds its own wait on top


def make_bot(settings: TelegramSettings) -> Bot:
    server = TelegramAPIServer.from_base(settings.api_base) if settings.api_base else PRODUCTION
    session = AiohttpSession(api=server, timeout=REQUEST_TIMEOUT)
    return Bot(
        settings.token,
        session=session,
        default=DefaultBotProperties(parse_mode=ParseMode.HTML, link_preview_is_disabled=True),
    )


def webhook_secret(web_secret: bytes) -> str:
    """Telegram's secret_token: 1-256 of A-Z a-z 0-9 _ -, derived from the web secret."""
    return hmac.new(web_secret, b"telegram-webhook", hashlib.sha256).hexdigest()[:48]


@dataclass
class TelegramFrontDoor:
    bot: Bot
    dispatcher: Dispatcher
    views: Views
    status: StatusUpdater
    search_messages: SearchMessages
    notifier: Notifier
    inbox: UpdateInbox
    settings: TelegramSettings
    public_url: str  # the webhook's base
    web_secret: bytes  # the webhook's secret is derived from it

    @classmethod
    def build(
        cls, settings: Settings, store: Store, cases: UseCases, i18n: I18n, web_secret: bytes
    ) -> "TelegramFrontDoor":
        """``web_secret`` signs the links to the pages and derives the webhook's secret."""
        search = cases.catalogue.enabled  # TMDB is the provider: titles, and their posters
        public_url = settings.web.public_url
        links = Links(public_url, web_secret, search=search)
        posters = settings.metadata.tmdb_images if search else ""
        telegram = settings.telegram
        bot = make_bot(telegram)
        views = Views(bot, store, links, i18n, posters)
        search_messages = SearchMessages(store, views, posters)
        dispatcher = Dispatcher(
            store=store,
            ingest=cases.ingest,
            actions=cases.actions,
            finder=cases.finder,
            searches=search_messages,
            i18n=i18n,
            links=links,
            views=views,
        )
        dispatcher.update.outer_middleware(AccessMiddleware(telegram.allowed_users))
        dispatcher.update.outer_middleware(LanguageMiddleware(i18n, store))
        dispatcher.include_routers(*routers())
        notifier = Notifier(store, views, telegram.allowed_users)
        return cls(
            bot=bot,
            dispatcher=dispatcher,
            views=views,
            status=StatusUpdater(store, views),
            search_messages=search_messages,
            notifier=notifier,
            inbox=UpdateInbox(
                bot, dispatcher, store, telegram.allowed_users, i18n, notifier.wake.set
            ),
            settings=telegram,
            public_url=public_url,
            web_secret=web_secret,
        )

    @property
    def loops(self) -> tuple[Loop, ...]:
        return (self.inbox.loop, self.notifier.loop, self.status.loop, self.search_messages.loop)

    def mount_webhook(self, app: web.Application) -> None:
        """Telegram posts updates to ``WEBHOOK_PATH``; a wrong secret header is refused.
        The 200 is answered once the update is stored in the inbox."""
        app.router.add_post(WEBHOOK_PATH, self.inbox.webhook(webhook_secret(self.web_secret)))

    def parts(self) -> list[Part]:
        """What runs in the background, for the supervisor: the receiver (polling, or
        setting the webhook), the inbox, the outbox and the status updater."""
        return [
            Part("telegram", self._receive),
            Part("inbox", self.inbox.run),
            Part("outbox", self.notifier.run),
            Part("status", self.status.run),
            Part("search_messages", self.search_messages.run),
        ]

    async def close(self) -> None:
        await self.bot.session.close()

    async def _receive(self, stop: asyncio.Event) -> None:
        if self.settings.mode == "webhook":
            url = self.public_url.rstrip("/") + WEBHOOK_PATH
            secret = webhook_secret(self.web_secret)
            set_webhook = functools.partial(
                self.bot.set_webhook, url, secret_token=secret, allowed_updates=[*ALLOWED_UPDATES]
            )
            if await _until_done("set_webhook", set_webhook, stop):
                get_logger().info("telegram.webhook_set", url=url)
            await stop.wait()
            return
        delete = functools.partial(self.bot.delete_webhook, drop_pending_updates=False)
        if await _until_done("delete_webhook", delete, stop):
            await self.inbox.poll(stop)


def warm_up_models() -> None:
    """aiogram's pydantic models finish building on first use, ~25 ms each: do it
    now, at start, not while the loop serves the first edit or button press."""
    markup = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="x", url="https://x.org", callback_data=None)]]
    )
    SendMessage(chat_id=1, text="x", reply_markup=markup, reply_to_message_id=1)
    SendMessage(
        chat_id=1,
        text="x",
        reply_parameters=ReplyParameters(message_id=1),
        link_preview_options=LinkPreviewOptions(is_disabled=True),
    )
    EditMessageText(chat_id=1, message_id=1, text="x", reply_markup=markup)
    AnswerCallbackQuery(callback_query_id="x", text="x", show_alert=False)
    GetUpdates(offset=1, timeout=1)
    chat = {"id": 1, "type": "private"}
    message = {
        "message_id": 1,
        "date": 0,
        "chat": chat,
        "text": "x",
        "from": {"id": 1, "is_bot": False, "first_name": "x"},
    }
    Update.model_validate({"update_id": 1, "message": {**message, "reply_to_message": message}})
    Update.model_validate(
        {
            "update_id": 2,
            "callback_query": {
                "id": "1",
                "from": message["from"],
                "chat_instance": "1",
                "data": "x",
                "message": message,
            },
        }
    )
    Update.model_validate(
        {
            "update_id": 3,
            "message": {**message, "document": {"file_id": "1", "file_unique_id": "1"}},
        }
    )


async def _until_done(
    operation: str, call: Callable[[], Awaitable[object]], stop: asyncio.Event
) -> bool:
    """Telegram may be unreachable or busy at start: wait out every 429 (however
    long) and try again with backoff until it answers (True) or jellybit stops
    (False); logged once, not every try. A refusal (a bad token, a webhook URL
    Telegram will not take) raises: the supervisor shows it, `jellybit check` explains."""
    failures = 0
    log = get_logger()
    while not stop.is_set():
        try:
            async with external_call(log, "telegram", operation):
                await call()
            return True
        except TelegramRetryAfter as error:
            log.info("telegram.retry_after", operation=operation, seconds=error.retry_after)
            await sleep_until(float(error.retry_after), stop)
        except (TelegramNetworkError, TelegramServerError, ClientDecodeError) as error:
            if failures == 0:
                log.warning("telegram.unavailable", operation=operation, reason=str(error))
            failures += 1
            await sleep_until(min(2.0 * failures, 30.0), stop)
    return False
