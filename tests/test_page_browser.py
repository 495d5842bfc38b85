"""The chat page in a real browser (Debian's chromium, headless, driven by Playwright):
the seed's conversation with cards, table, verdicts and agents; reload; phone width; booking
with the code field; HTML injection; friendly errors; the same page for the showroom and
the shop; what a reload restores; one welcome however "New conversation" races the page's
loading; codes masked; emphasis. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
import os
import re
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright
from werkzeug.serving import make_server

from app import create_app
from assistant.dialogue.state import SessionState

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
SEED = [
    ("I want a platinum conventional credit card for business", "retriever → formatter"),
    ("Which is best for me? Compare them", "comparator → formatter"),
    ("Am I eligible for the Mastercard one?", "eligibility → formatter"),
    ("Compare them and check eligibility", "comparator → eligibility → formatter"),
    ("Actually show me Islamic options instead", "retriever → formatter"),
    ("What are the fees?", "formatter"),
]


@contextmanager
def serving(app) -> Iterator[str]:
    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{http.server_port}"
    finally:
        http.shutdown()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("page")
    app = create_app({"session_db": folder / "s.sqlite3", "notify_outbox": folder / "outbox.jsonl", "reminder_poll_s": 0})
    with serving(app) as url:
        yield url, folder / "outbox.jsonl", app


@pytest.fixture(scope="module")
def browser():
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: install Debian's chromium (bash .ci/run does)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def new_page(browser):
    """Pages of their own (their own storage, no page loaded yet), closed after the test."""
    contexts = []

    def open_page() -> Page:
        contexts.append(browser.new_context(viewport={"width": 1280, "height": 900}))
        return contexts[-1].new_page()

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def page(browser, server):
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    opened(page, server[0])
    yield page
    context.close()


def opened(page: Page, url: str) -> None:
    """The page loaded and its welcome drawn: `say` counts answers, so none may still be on its way."""
    page.goto(url + "/")
    expect(page.locator(".msg.bot")).to_have_count(1)


def say(page: Page, text: str) -> None:
    answers = page.locator(".msg.bot:not(.streaming)").count()
    page.fill("#input", text)
    page.press("#input", "Enter")
    expect(page.locator(".msg.bot:not(.streaming)")).to_have_count(answers + 1, timeout=15_000)
    expect(page.locator("#input")).to_be_enabled()


def last_answer(page: Page):
    return page.locator(".msg.bot:not(.streaming)").last


def one_time_code(outbox: Path) -> str:
    sent = [json.loads(line) for line in outbox.read_text().splitlines()]
    return re.search(r"\b(\d{6})\b", [m for m in sent if m["kind"] == "otp"][-1]["text"]).group(1)


def held(page: Page, pattern: str) -> list:
    """Requests matching `pattern` wait until the test lets them go (route.continue_())."""
    waiting: list = []
    page.route(pattern, lambda route: waiting.append(route))
    return waiting


def arrived(page: Page, waiting: list):
    for _ in range(500):
        if waiting:
            return waiting[0]
        page.wait_for_timeout(20)
    raise AssertionError("the page never asked")


def settled(page: Page) -> None:
    """Every request the page started has answered, and what it drew on them is drawn."""
    page.wait_for_load_state("networkidle")
    page.evaluate("() => new Promise(done => setTimeout(done, 100))")


def test_the_seed_conversation_looks_right_and_survives_a_reload(page):
    page.select_option("#profile", "business_owner")
    for turn, (text, agents) in enumerate(SEED, 1):
        say(page, text)
        page.screenshot(path=str(ARTIFACTS / f"desktop-seed-{turn}.png"))
        expect(last_answer(page).locator(".agents")).to_have_text(agents)
        if text.startswith("I want"):
            expect(last_answer(page).locator(".pcard")).to_have_count(3)
            expect(last_answer(page).locator(".pcard .badge").first).to_have_text("Conventional")
        if text.startswith("Which is best"):
            expect(last_answer(page).locator("table[aria-label='Product comparison'] td.best").first).to_be_visible()
        if text.startswith("Am I eligible"):
            expect(last_answer(page).locator(".elig-item")).to_have_count(1)
            expect(last_answer(page).locator(".chip")).to_have_text("Need more info")
        if text.startswith("Actually"):
            expect(last_answer(page).locator(".pcard .badge").first).to_have_text("Islamic")
        if text.startswith("What are the fees"):
            expect(last_answer(page)).to_contain_text("Annual fee: ৳")

    page.reload()
    expect(page.locator(".msg.user")).to_have_count(len(SEED))
    expect(page.locator(".msg.bot .pcard").first).to_be_visible()
    page.click("#new-chat")
    expect(page.locator(".msg.user")).to_have_count(0)


def test_phone_width_has_no_sideways_scrolling(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    opened(page, server[0])
    page.click("#new-chat")
    say(page, "I want a platinum conventional credit card for business")
    say(page, "Compare them")
    overflow = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(ARTIFACTS / "phone-comparison.png"), full_page=True)
    context.close()


def test_booking_with_the_code_field(page, server):
    page.click("#new-chat")
    say(page, "book me a call next Sunday at 5 pm about the Visa Platinum Business Credit Card")
    expect(last_answer(page).locator(".booking h3")).to_have_text("Appointment in progress")
    say(page, "my name is Rahim Uddin")
    say(page, "01712345678")
    code_box = last_answer(page).locator(".code-form input")
    expect(code_box).to_be_visible()
    code = one_time_code(server[1])
    answers = page.locator(".msg.bot:not(.streaming)").count()
    code_box.fill(code)
    code_box.press("Enter")
    expect(page.locator(".msg.bot:not(.streaming)")).to_have_count(answers + 1, timeout=15_000)
    expect(last_answer(page).locator(".booking.confirmed h3")).to_contain_text("Appointment confirmed · BK-")
    assert code not in page.locator("#log").inner_text(), "the code is never shown on the page"
    assert all(box.input_value() == "" for box in page.locator(".code-form input").all())
    page.screenshot(path=str(ARTIFACTS / "desktop-booking.png"), full_page=True)


def test_text_from_users_is_never_html(page):
    page.click("#new-chat")
    say(page, "<img src=x onerror=alert(1)> **bold?**")
    assert page.locator("#log img").count() == 0
    expect(page.locator(".msg.user").last).to_have_text("<img src=x onerror=alert(1)> **bold?**")


def test_server_errors_are_a_friendly_line(page):
    page.route(
        "**/chat/stream",
        lambda route: route.fulfill(
            status=500,
            content_type="application/json",
            body=json.dumps({"error": "internal_error", "message": "Something went wrong on our side."}),
        ),
    )
    page.fill("#input", "hello")
    page.press("#input", "Enter")
    expect(page.locator(".msg.error")).to_have_text("Sorry, something went wrong: Something went wrong on our side.")
    expect(page.locator("#input")).to_be_enabled()


def test_without_the_stream_endpoint_the_page_falls_back_to_chat(page):
    page.route(
        "**/chat/stream",
        lambda route: route.fulfill(status=404, content_type="application/json", body='{"error": "not_found", "message": "x"}'),
    )
    page.click("#new-chat")
    say(page, "I want a platinum conventional credit card for business")
    expect(last_answer(page).locator(".pcard")).to_have_count(3)


@pytest.mark.parametrize(
    "domain,conversation",
    [
        ("cars", ["Show me SUVs under 15 lakhs", "compare Thar and Scorpio", "book a test drive of the Thar"]),
        ("store", ["Recommend a laptop, budget 35k", "My screen is frozen, what do I do?", "It's the Lenovo IdeaPad Gaming 3"]),
    ],
)
def test_the_same_page_serves_another_business(new_page, tmp_path, domain, conversation):
    app = create_app({"domain": domain, "session_db": tmp_path / "s.sqlite3", "reminder_poll_s": 0})
    about = app.test_client().get("/about").get_json()
    page = new_page()
    with serving(app) as url:
        opened(page, url)
        expect(page.locator("header h1")).to_have_text(about["title"])
        expect(page.locator("#profile")).to_be_hidden()  # neither business asks about employment
        expect(page.locator(".msg.bot").first).to_contain_text(re.sub(r"\*\*", "", about["welcome"])[:20])
        say(page, conversation[0])
        cards = last_answer(page).locator(".pcard")
        expect(cards.first).to_be_visible()
        expect(cards.first.locator(".fee")).to_contain_text("₹" if domain == "cars" else "฿")
        say(page, conversation[1])
        if domain == "cars":
            expect(last_answer(page).locator("table[aria-label='Product comparison'] td.best").first).to_be_visible()
            say(page, conversation[2])
            expect(last_answer(page).locator(".booking h3")).to_have_text("Test drive in progress")
        else:
            expect(last_answer(page)).to_contain_text("Which model is it?")
            say(page, conversation[2])
            expect(last_answer(page).locator("ol li").first).to_contain_text("Win+Ctrl+Shift+B")
            expect(last_answer(page)).to_contain_text("Back to your shopping")
        page.screenshot(path=str(ARTIFACTS / f"desktop-{domain}.png"), full_page=True)


def test_a_test_drive_card_keeps_the_showrooms_clock_and_prints_only_what_the_booking_has(new_page, tmp_path):
    outbox = tmp_path / "outbox.jsonl"
    app = create_app({"domain": "cars", "session_db": tmp_path / "s.sqlite3", "notify_outbox": outbox, "reminder_poll_s": 0})
    page = new_page()
    with serving(app) as url:
        opened(page, url)
        say(page, "book a test drive of the Thar")
        expect(last_answer(page).locator(".booking dd").first).to_have_text("Mahindra Thar AX(O) Diesel MT")
        for text in ("at home", "next Monday at 10 am", "Ravi Kumar", "9876543210"):
            say(page, text)
        code_box = last_answer(page).locator(".code-form input")
        code_box.fill(one_time_code(outbox))
        answers = page.locator(".msg.bot:not(.streaming)").count()
        code_box.press("Enter")
        expect(page.locator(".msg.bot:not(.streaming)")).to_have_count(answers + 1, timeout=15_000)
        lines = last_answer(page).locator(".booking.confirmed > div")
        # Pune's 10:00, not Dhaka's 10:30; a test drive at home has no branch to print.
        expect(lines).to_have_text(["Mahindra Thar AX(O) Diesel MT", re.compile(r"^Monday \d+ \w+ at 10:00$"), "Home"])
        assert "null" not in last_answer(page).locator(".booking").inner_text()


def test_the_booking_card_names_no_item_before_the_customer_chose_one(page):
    """The answer shows a card while the booking still asks which one: the booking card doesn't pick it."""
    step = {"slots": {}}

    def answer(route):
        session = json.loads(route.request.post_data)["session_id"]
        goal = {"id": "g1", "type": "booking", "status": "blocked", "slots": step["slots"], "missing": ["product"], "choices": []}
        body = {
            "session_id": session,
            "reply": "Which card would you like the appointment for?",
            "intent": {"type": "booking"},
            "agents": ["booking", "formatter"],
            "products": [{"id": "visa-gold", "name": "Visa Gold", "display": {}}],
            "state": {"active_goal": goal, "goal_stack": []},
        }
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/chat/stream", answer)
    page.click("#new-chat")
    say(page, "book an appointment")
    card = last_answer(page).locator(".booking")
    expect(card.locator("h3")).to_have_text("Appointment in progress")
    expect(card).not_to_contain_text("Visa Gold")
    step["slots"] = {"product": "visa-gold", "code_sent": False}
    say(page, "the Visa Gold")
    expect(last_answer(page).locator(".booking dd").first).to_have_text("Visa Gold")


def test_a_reload_restores_verdicts_quick_replies_and_booking_cards(page, server):
    page.click("#new-chat")
    say(page, "Am I eligible for the Visa Platinum Business Credit Card?")
    expect(last_answer(page).locator(".elig-item")).to_have_count(1)
    say(page, "book me an appointment about the Visa Platinum Business Credit Card next Sunday at 5 pm")
    expect(page.locator(".choices button")).to_have_text(["Branch visit", "Call-back"])

    page.reload()
    expect(page.locator(".msg.user")).to_have_count(2)
    expect(page.locator(".msg.bot .elig-item .chip")).to_have_text("Need more info")
    # Only the latest answer's quick replies, after it, as live (not the eligibility question's).
    expect(page.locator(".choices")).to_have_count(1)
    expect(page.locator("#log > :last-child button")).to_have_text(["Branch visit", "Call-back"])
    expect(last_answer(page).locator(".booking h3")).to_have_text("Appointment in progress")
    answers = page.locator(".msg.bot:not(.streaming)").count()
    page.get_by_role("button", name="Call-back").click()
    expect(page.locator(".msg.bot:not(.streaming)")).to_have_count(answers + 1, timeout=15_000)
    say(page, "my name is Rahim Uddin")
    say(page, "01712345678")

    page.reload()  # waiting for the code: the card and its code field come back
    expect(last_answer(page).locator(".code-form input")).to_be_visible()
    code = one_time_code(server[1])
    say(page, code)  # typed in the chat box, not the card's field
    expect(page.locator(".msg.user").last).to_have_text("••••••")
    expect(last_answer(page).locator(".booking.confirmed > div")).to_have_text(
        ["Visa Platinum Business Credit Card", re.compile(r"^Sunday \d+ \w+ at 17:00$"), re.compile(r"^Call-back to \+880\*+678$")]
    )

    page.reload()
    expect(last_answer(page).locator(".booking.confirmed h3")).to_contain_text("Appointment confirmed · BK-")
    expect(page.locator(".msg.user").last).to_have_text("••••••")
    expect(page.locator(".choices")).to_have_count(0)
    assert code not in page.locator("#log").inner_text()


def test_a_session_saved_before_answers_kept_their_cards_still_loads(new_page, server):
    session = str(uuid.uuid4())
    old = {
        "session_id": session,
        "history": [
            {"role": "user", "text": "hello", "intent": "greeting", "agents": [], "products": []},
            {"role": "assistant", "text": "Hi, *welcome*!", "intent": "greeting", "agents": ["formatter"], "products": []},
        ],
    }
    server[2].extensions["pipeline"].store.save(SessionState.model_validate(old))
    page = new_page()
    page.add_init_script(f"localStorage.setItem('cardAssistant.sessionId', '{session}')")
    page.goto(server[0] + "/")
    expect(page.locator(".msg.user")).to_have_text(["hello"])
    expect(page.locator(".msg.bot em")).to_have_text("welcome")
    expect(page.locator(".msg.bot .agents")).to_have_text("formatter")


@pytest.mark.parametrize("waiting", ["**/about", "**/sessions/*"])
def test_a_new_conversation_while_the_page_loads_has_one_welcome(new_page, server, waiting):
    """Clicked before the business's words arrived, or before the old conversation came back."""
    session = str(uuid.uuid4())
    server[2].test_client().post("/chat", json={"query": "I want a platinum visa credit card", "session_id": session})
    about = server[2].test_client().get("/about").get_json()
    page = new_page()
    page.add_init_script(f"localStorage.setItem('cardAssistant.sessionId', '{session}')")
    requests = held(page, waiting)
    page.goto(server[0] + "/")
    request = arrived(page, requests)
    page.click("#new-chat")
    request.continue_()
    settled(page)
    expect(page.locator(".msg")).to_have_count(1)
    expect(page.locator(".msg.bot")).to_contain_text(re.sub(r"\*\*", "", about["welcome"])[:20])
    expect(page.locator(".choices button")).to_have_count(len(about["examples"]))


def test_an_answer_that_lands_after_a_new_conversation_stays_out_of_it(page):
    page.click("#new-chat")
    requests = held(page, "**/chat/stream")
    page.fill("#input", "I want a platinum visa credit card")
    page.press("#input", "Enter")
    request = arrived(page, requests)
    page.click("#new-chat")
    fresh = page.evaluate("localStorage.getItem('cardAssistant.sessionId')")
    request.continue_()
    expect(page.locator("#input")).to_be_enabled()
    settled(page)
    expect(page.locator(".msg")).to_have_count(1)  # the welcome only
    assert page.evaluate("localStorage.getItem('cardAssistant.sessionId')") == fresh


def test_markdown_emphasis_leaves_bold_lists_and_arithmetic_alone(page):
    def render(md: str) -> str:
        return page.evaluate("md => window.__renderMarkdown(md)", md)

    assert render("*Note:* it's _free_") == "<p><em>Note:</em> it&#39;s <em>free</em></p>"
    assert render("**36** and *this*") == "<p><strong>36</strong> and <em>this</em></p>"
    assert render("* one\n* *two*") == "<ul><li>one</li><li><em>two</em></li></ul>"
    assert render("12 * 3 = **36**") == "<p>12 * 3 = <strong>36</strong></p>"
    assert render("2*3*4 = 24, see max_fee_rate") == "<p>2*3*4 = 24, see max_fee_rate</p>"


def test_the_attach_button_uploads_a_photo_shows_its_chip_and_the_next_message_brings_it(page, tmp_path):
    from PIL import Image

    photo = tmp_path / "escape.jpg"
    Image.effect_noise((160, 120), 60).convert("RGB").save(photo, "JPEG")
    assert page.get_attribute("#file", "accept") == "image/*,application/pdf"
    with page.expect_file_chooser() as chooser:
        page.click("#attach")
    chooser.value.set_files(str(photo))
    chip = page.locator("#tray .att.ready")
    expect(chip).to_have_count(1)
    expect(chip.locator("img.thumb")).to_be_visible()
    expect(chip.locator(".name")).to_have_text("escape.jpg")
    page.screenshot(path=str(ARTIFACTS / "attach-chip.png"))
    with page.expect_request(lambda r: r.url.endswith("/chat/stream")) as sent:
        say(page, "")  # files and no words
    body = json.loads(sent.value.post_data or "{}")
    assert body["query"] == "\N{PAPERCLIP}" and len(body["attachments"]) == 1
    assert re.fullmatch(r"[0-9a-f]{32}", body["attachments"][0])
    expect(page.locator(".msg.user").last.locator(".att.sent img.thumb")).to_be_visible()
    expect(page.locator("#tray")).to_be_hidden()
    page.screenshot(path=str(ARTIFACTS / "attach-sent.png"))
