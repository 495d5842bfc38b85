"""The operators' console and the customer's chat page together, in real chromium (Debian's,
headless, driven by Playwright): a customer asks for a person, an operator signs in (after a
wrong key), finds the conversation in the queue, takes it over and writes; the customer reads
it within seconds, writes back to the person alone, and is handed back to the assistant. Also:
nothing but the login form without a credential, the panic switch, and the unanswered questions'
CSV. Screenshots go to test-artifacts/."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

import pytest
from conftest import OPERATOR_KEY, app_for, signed_in
from playwright.sync_api import Page, expect
from test_page_browser import ARTIFACTS, last_answer, opened, say, serving

HELLO = "Hello, this is a person from the bank. How can I help?"
OPERATOR = {"X-API-Key": OPERATOR_KEY}


@pytest.fixture
def bank(tmp_path) -> Iterator[tuple[str, object]]:
    app = app_for(tmp_path, "bank")
    with serving(app) as url:
        yield url, app


@pytest.fixture
def tabs(browser) -> Iterator:
    """Tabs of their own (their own storage), each failing the test on a script error."""
    ARTIFACTS.mkdir(exist_ok=True)
    contexts, errors = [], []

    def open_tab() -> Page:
        contexts.append(browser.new_context(viewport={"width": 1280, "height": 900}))
        tab = contexts[-1].new_page()
        tab.on("pageerror", lambda error: errors.append(str(error)))
        return tab

    yield open_tab
    for context in contexts:
        context.close()
    assert not errors, errors


def operator_signs_in(console: Page, url: str) -> None:
    console.goto(url + "/console")
    console.fill("#credential", OPERATOR_KEY)
    console.click("#login-submit")
    expect(console.locator("#desk")).to_be_visible()
    expect(console.locator("#login")).to_be_hidden()


def to_people(chat: Page, text: str) -> None:
    """A message while people have the conversation: the customer's bubble and a quiet "Sent",
    no answer of the assistant's, and the box free again."""
    answers, mine = chat.locator(".msg.bot").count(), chat.locator(".msg.user").count()
    chat.fill("#input", text)
    chat.press("#input", "Enter")
    expect(chat.locator(".msg.user")).to_have_count(mine + 1)
    expect(chat.locator(".sent-note")).to_be_visible(timeout=15_000)
    expect(chat.locator("#input")).to_be_enabled()
    chat.wait_for_timeout(300)
    expect(chat.locator(".msg.bot")).to_have_count(answers)


def test_a_customer_talks_to_a_person_and_goes_back_to_the_assistant(bank, tabs):
    url, _ = bank
    chat = tabs()
    opened(chat, url)
    say(chat, "I want to talk to a person")
    assert last_answer(chat).inner_text().strip(), "the hand-over is said in words"

    console = tabs()
    console.goto(url + "/console")
    console.fill("#credential", "not-the-key")
    console.click("#login-submit")
    expect(console.locator("#login-error")).to_be_visible()
    expect(console.locator("#login-error")).to_contain_text("not accepted")
    expect(console.locator("#desk")).to_be_hidden()
    console.fill("#credential", OPERATOR_KEY)
    console.click("#login-submit")
    expect(console.locator("#me")).to_contain_text("Signed in as")
    expect(console.locator("#login-error")).to_be_hidden()

    row = console.locator("#queue .qrow")
    expect(row).to_have_count(1)
    expect(row.locator(".who")).to_have_text("Waiting")
    expect(row.locator(".facts")).to_contain_text("min")
    expect(row.locator(".facts")).to_contain_text("bank")
    console.screenshot(path=str(ARTIFACTS / "console-queue.png"))
    row.click()
    expect(console.locator("#transcript .turn.user").first).to_contain_text("I want to talk to a person")
    expect(console.locator("#reply-text")).to_be_disabled()
    console.click("#take")
    expect(console.locator("#reply-text")).to_be_enabled()
    expect(console.locator("#conv-status")).to_contain_text("You have this conversation")
    console.fill("#reply-text", HELLO)
    console.click("#reply-send")
    expect(console.locator("#reply-text")).to_have_value("")
    expect(console.locator("#transcript .turn.operator")).to_contain_text(HELLO)

    person = chat.locator(".msg.bot.operator")
    expect(person).to_have_count(1, timeout=10_000)
    expect(person).to_contain_text(HELLO)
    expect(person.locator(".who")).to_contain_text("(staff)")

    to_people(chat, "Can you check my card fees?")
    chat.screenshot(path=str(ARTIFACTS / "chat-with-person.png"))
    expect(console.locator("#transcript .turn.user").last).to_contain_text("Can you check my card fees?", timeout=10_000)
    console.screenshot(path=str(ARTIFACTS / "console-conversation.png"), full_page=True)

    console.fill("#release-note", "answered the fees question")
    console.click("#release")
    expect(console.locator("#reply-text")).to_be_disabled()
    expect(console.locator("#take")).to_be_enabled()

    say(chat, "show me gold credit cards")
    answer = last_answer(chat)
    expect(answer).not_to_have_class("msg bot operator")
    expect(answer.locator(".pcard").first).to_be_visible()
    expect(chat.locator(".msg.bot.operator")).to_have_count(1)

    chat.reload()  # what the person wrote is part of the conversation the page restores
    expect(chat.locator(".msg.bot.operator")).to_have_count(1)
    expect(chat.locator(".msg.bot.operator")).to_contain_text(HELLO)
    expect(chat.locator(".msg.user")).to_have_count(3)


def test_without_a_credential_the_console_is_only_its_login_form(bank, tabs):
    url, app = bank
    waiting = {"query": "I want to talk to a person", "session_id": "6f1c1d6e-3d4e-4f7a-9a51-0a9d7c3c2b11"}
    app.test_client().post("/chat", json=waiting)
    console = tabs()
    asked: list[str] = []
    console.on("request", lambda request: asked.append(request.url))
    console.goto(url + "/console")
    expect(console.locator("#login-form")).to_be_visible()
    expect(console.locator("#desk")).to_be_hidden()
    expect(console.locator("#signed-in")).to_be_hidden()
    console.wait_for_load_state("networkidle")
    assert not [u for u in asked if "/console/api/" in u], "nothing is asked before a sign-in"
    assert "talk to a person" not in console.locator("body").inner_text()

    operator_signs_in(console, url)
    expect(console.locator("#queue .qrow")).to_have_count(1)
    assert console.evaluate("Object.keys(sessionStorage).length") == 1
    assert console.evaluate("Object.keys(localStorage).length") == 0, "the credential stays in this tab only"
    console.reload()  # the tab stays signed in
    expect(console.locator("#queue .qrow")).to_have_count(1)

    console.click("#logout")
    expect(console.locator("#login-form")).to_be_visible()
    expect(console.locator("#desk")).to_be_hidden()
    expect(console.locator("#queue .qrow")).to_have_count(0)
    assert console.evaluate("Object.keys(sessionStorage).length") == 0

    # a credential that stops being accepted sends the console back to its form
    console.evaluate(f"sessionStorage.setItem('assistantConsole.credential', '{OPERATOR_KEY}-revoked')")
    console.reload()
    expect(console.locator("#login-form")).to_be_visible()
    expect(console.locator("#desk")).to_be_hidden()


def test_an_operators_token_signs_in_and_a_customers_does_not(bank, tabs):
    url, _ = bank
    console = tabs()
    console.goto(url + "/console")
    customer = signed_in("cust_1001")["Authorization"].removeprefix("Bearer ")
    console.fill("#credential", customer)
    console.click("#login-submit")
    expect(console.locator("#login-error")).to_contain_text("for operators")
    expect(console.locator("#desk")).to_be_hidden()
    operator = signed_in("Asha", role="operator")["Authorization"].removeprefix("Bearer ")
    console.fill("#credential", operator)
    console.click("#login-submit")
    expect(console.locator("#me")).to_have_text("Signed in as Asha")
    expect(console.locator("#desk")).to_be_visible()


def test_customers_words_are_text_in_the_console(bank, tabs):
    url, app = bank
    client, session = app.test_client(), "0b5e0c8a-5f7e-4a43-9d0c-6a1f4b2d7e90"
    client.post("/chat", json={"query": "I want to talk to a person", "session_id": session})
    client.post("/chat", json={"query": "<img src=x onerror=\"document.title='pwned'\"> **hi**", "session_id": session})
    console = tabs()
    operator_signs_in(console, url)
    console.locator("#queue .qrow").first.click()
    expect(console.locator("#transcript .turn.user .text").last).to_have_text(
        "<img src=x onerror=\"document.title='pwned'\"> **hi**"
    )
    assert console.locator("#transcript img, #queue img").count() == 0
    assert console.title() == "Operator console"


def test_the_panic_switch_asks_first_and_shows_a_banner(bank, tabs):
    url, app = bank
    console = tabs()
    operator_signs_in(console, url)
    switch, banner = console.locator("#panic"), console.locator("#panic-banner")
    expect(banner).to_be_hidden()

    console.once("dialog", lambda dialog: dialog.dismiss())
    switch.click()
    console.wait_for_timeout(300)
    expect(banner).to_be_hidden()
    assert app.test_client().get("/console/api/panic", headers=OPERATOR).get_json()["on"] is False

    console.once("dialog", lambda dialog: dialog.accept())
    switch.click()
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("every new message goes to people")
    expect(switch).to_have_attribute("aria-checked", "true")
    assert app.test_client().get("/console/api/panic", headers=OPERATOR).get_json()["on"] is True
    console.screenshot(path=str(ARTIFACTS / "console-panic.png"))

    switch.click()  # off needs no confirmation
    expect(banner).to_be_hidden()
    expect(switch).to_have_attribute("aria-checked", "false")
    assert app.test_client().get("/console/api/panic", headers=OPERATOR).get_json()["on"] is False


def test_the_unanswered_questions_and_their_csv(bank, tabs):
    url, app = bank
    client = app.test_client()
    client.post("/chat", json={"query": "I want to talk to a person", "session_id": "3c6f7b0e-8f35-4d8e-a7f1-2b9e4d0c1a77"})
    groups = client.get("/console/api/unanswered", headers=OPERATOR).get_json()["groups"]
    console = tabs()
    operator_signs_in(console, url)
    console.click("#tab-unanswered")
    expect(console.locator("#view-unanswered")).to_be_visible()
    expect(console.locator("#view-queue")).to_be_hidden()
    expect(console.locator("#unanswered tbody tr")).to_have_count(len(groups))
    with console.expect_download() as download:
        console.click("#export-csv")
    assert download.value.suggested_filename == "unanswered.csv"
    rows = list(csv.reader(io.StringIO(open(download.value.path(), encoding="utf-8-sig").read())))
    assert rows and len(rows) >= len(groups)
