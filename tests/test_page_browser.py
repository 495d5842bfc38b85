"""The chat page in a real browser (Debian's chromium, headless, driven by Playwright):
the README's example conversation with cards, table, verdicts and agents; reload; phone width; booking
with the code field; HTML injection; friendly errors; the same page for the showroom and
the shop; what a reload restores; one welcome however "New conversation" races the page's
loading; codes masked; emphasis; the attach button; a whole homologation case, photos and all,
handed to the office. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from werkzeug.serving import make_server

from app import create_app
from assistant.dialogue.state import SessionState

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


@pytest.fixture
def new_page(browser):
    """Pages of their own (their own storage, no page loaded yet), closed after the test; a
    desktop's by default, or as `options` say (a phone's, the visitor's browser language)."""
    contexts = []

    def open_page(**options) -> Page:
        contexts.append(browser.new_context(**{"viewport": {"width": 1280, "height": 900}, "locale": "en-US", **options}))
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


def say(page: Page, text: str | None) -> None:
    """`text` typed and sent with Enter (None: what the box already holds), and its answer drawn."""
    answers = page.locator(".msg.bot:not(.streaming)").count()
    if text is not None:
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


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
SHIPPED = {"Noto Sans Bengali": "অ", "Noto Sans Devanagari": "अ", "Noto Sans Thai": "ก"}  # static/fonts, a letter of each


@pytest.fixture(scope="module")
def thai_store(tmp_path_factory):
    """The store, with a Thai translation (tests/test_page_languages.py makes it) whatever data/ has."""
    from tests.conftest import app_for
    from tests.test_page_languages import THAI_PAGE, translated_pack

    folder = tmp_path_factory.mktemp("store-th")
    with serving(app_for(folder, data_dir=translated_pack(folder, "store", "th", THAI_PAGE))) as url:
        yield url, THAI_PAGE


def fonts(page: Page) -> dict[str, list[str]]:
    """The shipped faces' states by family: "unloaded" until the page shows a letter of theirs."""
    return page.evaluate(
        """() => { const states = {};
            for (const face of document.fonts) (states[face.family.replace(/"/g, "")] ??= []).push(face.status);
            return states; }"""
    )


def drawn_in(page: Page, family: str) -> None:
    """Waits until the page has fetched and drawn letters in `family`, one of the shipped fonts."""
    page.wait_for_function("name => [...document.fonts].some(f => f.family.includes(name) && f.status === 'loaded')", arg=family)


def test_a_reply_in_thai_turns_the_page_thai_at_phone_width(new_page, thai_store):
    """The customer writes Thai on the English page: the reply's `language` switches the page's own
    words, screen-reader names and <html lang> to Thai; what was shown stays; the Thai letters are
    drawn in the page's own Noto Sans Thai, and no other script's font is fetched."""
    url, thai = thai_store
    page = new_page(**PHONE)
    opened(page, url)
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#send")).to_have_text("Send")
    welcome = page.locator(".msg.bot").first.inner_text()
    assert set(fonts(page)["Noto Sans Thai"]) == {"unloaded"}

    say(page, "แนะนำโน้ตบุ๊กงบสามหมื่นบาท")
    expect(page.locator("html")).to_have_attribute("lang", "th")
    expect(page.locator("#input")).to_have_attribute("placeholder", thai["page.placeholder"])
    expect(page.locator("#send")).to_have_text(thai["page.labels.send"])
    expect(page.locator("#new-chat")).to_have_text(thai["page.labels.new_conversation"])
    expect(page.locator("label[for='input']")).to_have_text(thai["page.labels.message"])
    expect(page.locator("#attach")).to_have_attribute("aria-label", thai["page.labels.attach"])
    expect(page.locator("#attach")).to_have_attribute("title", thai["page.labels.attach"])
    expect(page.locator("header h1")).to_have_text(re.compile(r"^\[th\] "))
    assert page.title().startswith("[th] ")
    expect(page.locator(".msg.bot").first).to_have_text(welcome)  # what was shown stays as it was

    drawn_in(page, "Noto Sans Thai")
    assert page.evaluate("document.fonts.check('16px \"Noto Sans Thai\"', 'ก')")
    shown = fonts(page)
    assert set(shown["Noto Sans Bengali"]) == set(shown["Noto Sans Devanagari"]) == {"unloaded"}
    assert "Noto Sans Thai" in page.locator(".msg.user").last.evaluate("e => getComputedStyle(e).fontFamily")
    assert page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth") <= 0
    page.screenshot(path=str(ARTIFACTS / "phone-store-thai.png"), full_page=True)

    page.click("#new-chat")  # a new conversation greets in the page's language
    expect(page.locator(".msg.bot").first).to_contain_text("[th] ")


def test_a_thai_browser_opens_the_page_in_thai(new_page, thai_store):
    url, thai = thai_store
    page = new_page(locale="th-TH", **PHONE)
    opened(page, url)
    expect(page.locator("html")).to_have_attribute("lang", "th")
    expect(page.locator("#input")).to_have_attribute("placeholder", thai["page.placeholder"])
    expect(page.locator(".choices")).to_have_attribute("aria-label", thai["page.labels.suggested_replies"])
    expect(page.locator(".msg.bot").first).to_contain_text("[th] ")
    assert page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth") <= 0
    page.screenshot(path=str(ARTIFACTS / "phone-store-thai-browser.png"), full_page=True)


def test_a_reply_in_bengali_rewords_the_code_box_already_on_screen(new_page, tmp_path):
    """A booking waiting for its one-time code, then a message in Bengali: the code boxes on the
    page (the one shown before too) are worded in Bengali, and the page fetches the Bengali font."""
    from tests.conftest import app_for
    from tests.test_page_languages import translated_pack

    words = {"page.labels.code_placeholder": "৬ সংখ্যার কোড", "page.labels.one_time_code": "ওয়ান-টাইম কোড"}
    words |= {"page.labels.confirm": "নিশ্চিত করুন"}
    bank = translated_pack(tmp_path, "bank", "bn", words)
    page = new_page(**PHONE)
    with serving(app_for(tmp_path, data_dir=bank)) as url:
        opened(page, url)
        say(page, "book me a call next Sunday at 5 pm about the Visa Platinum Business Credit Card")
        say(page, "my name is Rahim Uddin")
        say(page, "01712345678")
        expect(page.locator(".code-form input").last).to_have_attribute("placeholder", "6-digit code")
        say(page, "কোডটা এখনো আসেনি")
        expect(page.locator("html")).to_have_attribute("lang", "bn")
        boxes = page.locator(".code-form")
        assert boxes.count() >= 1
        for box in boxes.all():
            expect(box.locator("input")).to_have_attribute("placeholder", "৬ সংখ্যার কোড")
            expect(box.locator("input")).to_have_attribute("aria-label", "ওয়ান-টাইম কোড")
            expect(box.locator("button")).to_have_text("নিশ্চিত করুন")
        drawn_in(page, "Noto Sans Bengali")
        assert page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth") <= 0
        page.screenshot(path=str(ARTIFACTS / "phone-bank-bengali.png"), full_page=True)


def test_every_shipped_font_loads_in_both_weights(page):
    """Each woff2 under static/fonts is served and is a font Chromium reads, regular and bold."""
    loaded = page.evaluate(
        """async letters => { const got = {};
            for (const [family, letter] of Object.entries(letters))
              for (const weight of [400, 700])
                got[`${family} ${weight}`] = (await document.fonts.load(`${weight} 16px "${family}"`, letter))
                  .map(face => `${face.status} ${face.weight}`);
            return got; }""",
        SHIPPED,
    )
    assert loaded == {f"{family} {w}": [f"loaded {w}"] for family in SHIPPED for w in (400, 700)}


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


def test_a_photo_no_question_asked_for_is_refused_on_its_chip_and_never_sent(page, tmp_path):
    """Files go only to a conversation whose flow asks for them now: in a card chat the chip says
    why, and the message sent afterwards brings no file (the homologation tests below send them)."""
    from PIL import Image

    photo = tmp_path / "escape.jpg"
    Image.effect_noise((160, 120), 60).convert("RGB").save(photo, "JPEG")
    assert page.get_attribute("#file", "accept") == "image/*,application/pdf"
    with page.expect_file_chooser() as chooser:
        page.click("#attach")
    chooser.value.set_files(str(photo))
    chip = page.locator("#tray .att.failed")
    expect(chip).to_have_count(1)
    expect(chip.locator(".why")).to_have_text("This conversation is not asking for files now: send them when the assistant asks.")
    expect(page.locator("#tray .att.ready")).to_have_count(0)
    with page.expect_request(lambda r: r.url.endswith("/chat/stream")) as sent:
        say(page, "hello")
    assert json.loads(sent.value.post_data or "{}").get("attachments", []) == []
    page.screenshot(path=str(ARTIFACTS / "attach-refused.png"))


# --- the homologation desk: a whole case in the page, photos and all -------------------------


def _photo(folder: Path, name: str, label: str, size: tuple[int, int] = (640, 480)) -> Path:
    """A real photo for the attach button: a colour gradient with its label drawn (JPEG or PNG by its name)."""
    from PIL import Image, ImageDraw

    shade = Image.linear_gradient("L").resize(size)
    photo = Image.merge("RGB", (shade, shade.transpose(Image.Transpose.FLIP_LEFT_RIGHT), Image.new("L", size, 140)))
    ImageDraw.Draw(photo).text((24, size[1] // 2), label, fill=(255, 255, 255))
    path = folder / name
    photo.save(path, "JPEG" if name.endswith(".jpg") else "PNG")
    return path


def _scanned_pdf(folder: Path, name: str) -> Path:
    """A small real PDF, as a scanned document is sent."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=14)
    pdf.cell(text="Ficha tecnica y permiso de circulacion - 1234 BCD")
    path = folder / name
    pdf.output(str(path))
    return path


def attach_and_send(page: Page, files: list[Path], text: str = "", shot: str | None = None) -> list[str]:
    """Files chosen with the attach button, uploaded (their chips ready), then sent with `text`:
    the ids the message brought."""
    with page.expect_file_chooser() as chooser:
        page.click("#attach")
    chooser.value.set_files([str(f) for f in files])
    expect(page.locator("#tray .att.ready")).to_have_count(len(files))
    if shot:
        page.screenshot(path=str(ARTIFACTS / shot))
    with page.expect_request(lambda r: r.url.endswith("/chat/stream")) as sent:
        say(page, text)
    ids: list[str] = json.loads(sent.value.post_data or "{}")["attachments"]
    expect(page.locator(".msg.user").last.locator(".att.sent")).to_have_count(len(files))
    return ids


def choose(page: Page, choice: str) -> None:
    answers = page.locator(".msg.bot:not(.streaming)").count()
    page.locator(".choices").last.get_by_role("button", name=choice).click()
    expect(page.locator(".msg.bot:not(.streaming)")).to_have_count(answers + 1, timeout=15_000)
    expect(page.locator("#input")).to_be_enabled()


def test_the_homologation_page_speaks_spanish_and_the_banks_stays_english(new_page, server, tmp_path):
    """The page's own words are the pack's (`page.labels`, `page.lang`): the Spanish desk's buttons,
    labels, error line and <html lang> are Spanish, its agent trace quiet; the bank keeps English."""
    from tests.conftest import app_for

    ARTIFACTS.mkdir(exist_ok=True)
    bank = new_page()
    opened(bank, server[0])
    expect(bank.locator("html")).to_have_attribute("lang", "en")
    expect(bank.locator("#new-chat")).to_have_text("New conversation")
    expect(bank.locator("#send")).to_have_text("Send")
    expect(bank.locator("#attach")).to_have_attribute("aria-label", "Attach a photo or PDF")
    page = new_page(locale="es-ES")  # a customer of the Spanish desk
    with serving(app_for(tmp_path, "homologation")) as url:
        opened(page, url)
        expect(page.locator("html")).to_have_attribute("lang", "es")
        expect(page.locator("#new-chat")).to_have_text("Nueva conversación")
        expect(page.locator("#send")).to_have_text("Enviar")
        expect(page.locator("#attach")).to_have_attribute("aria-label", "Adjuntar una foto o un PDF")
        expect(page.locator("#attach")).to_have_attribute("title", "Adjuntar una foto o un PDF")
        expect(page.locator("#tray")).to_have_attribute("aria-label", "Archivos para tu próximo mensaje")
        expect(page.locator("label[for='input']")).to_have_text("Tu mensaje")
        expect(page.locator(".choices")).to_have_attribute("aria-label", "Respuestas sugeridas")
        expect(page.locator(".choices button").last).to_have_text("¿Cuánto cuesta homologar un kit de elevación en mi todoterreno?")
        page.screenshot(path=str(ARTIFACTS / "homologation-es-welcome.png"))
        chrome = page.evaluate("() => document.querySelector('header').innerText + document.querySelector('#composer').innerText")
        assert not re.search(r"New conversation|Send|Attach", chrome), chrome

        say(page, "quiero homologar el escape de mi moto")
        trace = last_answer(page).locator(".agents")
        expect(trace).to_have_text("quote → formatter")
        expect(trace).to_have_attribute("title", "Agentes que han preparado la respuesta")
        assert float(trace.evaluate("e => getComputedStyle(e).opacity")) < 1  # a developer's detail, kept quiet
        page.screenshot(path=str(ARTIFACTS / "homologation-es-page.png"))

        with page.expect_file_chooser() as chooser:
            page.click("#attach")
        chooser.value.set_files([str(_photo(tmp_path, "escape.jpg", "escape"))])
        expect(page.locator("#tray .att .x")).to_have_attribute("aria-label", "Quitar escape.jpg")
        page.locator("#tray .att .x").click()

        page.route(
            "**/chat/stream",
            lambda route: route.fulfill(status=502, content_type="text/html", body="<html>bad gateway</html>"),
        )
        page.fill("#input", "hola")
        page.press("#input", "Enter")
        expect(page.locator(".msg.error")).to_have_text("Lo sentimos, algo ha fallado: el servidor ha devuelto un error (502).")


def test_a_whole_homologation_case_in_the_page_with_photos_to_the_office(new_page, tmp_path):
    """The homologation desk from the first message to the office: the quote and its warning, the example
    drawings, real photos through the attach button, every phase typed as a customer types it
    (five answers on five lines with Shift+Enter), the review, and the case read with the operator key."""
    from tests.conftest import OPERATOR_KEY, app_for

    ARTIFACTS.mkdir(exist_ok=True)
    files = tmp_path / "files"
    files.mkdir()
    exhaust = [_photo(files, f"escape-{i}.jpg", text) for i, text in enumerate(("escape montado", "marcaje e13", "moto 1234 BCD"))]
    shock = [_photo(files, f"amortiguador-{i}.png", text) for i, text in enumerate(("amortiguador", "etiqueta Ohlins"))]
    papers = [_scanned_pdf(files, "ficha-tecnica.pdf"), _photo(files, "permiso.jpg", "permiso de circulacion")]
    page = new_page(locale="es-ES")
    with serving(app_for(tmp_path, "homologation")) as url:
        opened(page, url)
        say(page, "quiero homologar el escape y el amortiguador delantero de mi moto")
        quote = last_answer(page)
        expect(quote).to_contain_text("300 € +IVA")
        expect(quote.locator("li")).to_contain_text(["No incluye el certificado del taller de montaje"])
        expect(quote.locator(".examples img")).to_have_count(0)  # offered, not sent
        page.screenshot(path=str(ARTIFACTS / "homologation-1-quote.png"))

        say(page, "sí, envíame las fotos de ejemplo")
        drawings = last_answer(page).locator(".examples img")
        expect(drawings).to_have_count(7)
        expect(last_answer(page).locator(".examples figcaption").first).to_have_text("Foto general del escape montado en la moto")
        drawings.last.scroll_into_view_if_needed()
        page.wait_for_function("() => [...document.querySelectorAll('.examples img')].every(i => i.complete && i.naturalWidth > 0)")
        page.screenshot(path=str(ARTIFACTS / "homologation-2-images.png"))

        say(page, "dale, adelante")
        expect(last_answer(page)).to_contain_text("Envíame 3 fotos de Escape")
        exhaust_ids = attach_and_send(page, exhaust, "ahí van", shot="homologation-3-photos-attached.png")
        expect(last_answer(page)).to_contain_text("Recibido (Escape): 3.")
        expect(last_answer(page).locator("li strong")).to_have_count(5)  # five fields at once
        page.fill("#input", "Akrapovic")
        for line in ("GP-1", "e13*1234", "95", "no"):
            page.press("#input", "Shift+Enter")
            page.type("#input", line)
        assert page.input_value("#input") == "Akrapovic\nGP-1\ne13*1234\n95\nno"
        say(page, None)  # Enter sends what the box holds
        expect(page.locator(".msg.user").last).to_have_text("Akrapovic\nGP-1\ne13*1234\n95\nno")
        expect(last_answer(page)).to_contain_text("Envíame 2 fotos de Suspensión delantera")

        shock_ids = attach_and_send(page, shock)
        page.screenshot(path=str(ARTIFACTS / "homologation-4-photos-sent.png"))
        expect(last_answer(page)).to_contain_text("¿De qué marca es la suspensión?")  # one by one
        say(page, "Öhlins")
        expect(last_answer(page)).to_contain_text("¿Qué referencia o modelo tiene?")
        say(page, "FG 432")
        expect(last_answer(page)).to_contain_text("documentación del vehículo")
        document_ids = attach_and_send(page, papers, "la ficha y el permiso")
        expect(page.locator(".msg.user").last.locator(".att.sent .doc")).to_have_text("PDF")
        expect(last_answer(page)).to_contain_text("Datos personales")
        say(page, "Juan García López\n12345678Z\nCalle Mayor 5, 28013 Madrid\njuan@example.com\n612345678")
        expect(last_answer(page)).to_contain_text("Datos del vehículo")
        say(page, "1234 BCD\nHonda\nCB650R\nVF1AB000123456789")
        expect(last_answer(page)).to_contain_text("taller")
        choose(page, "Todavía no")
        review = last_answer(page)
        expect(review).to_contain_text("Revisa tu expediente")
        headings = ["Escape", "Suspensión delantera", "Datos personales", "Datos del vehículo"]
        expect(review.locator("strong")).to_contain_text(headings)
        expect(review).to_contain_text("Nº de bastidor (VIN): VF1AB000123456789")
        assert "**" not in review.inner_text()
        review.screenshot(path=str(ARTIFACTS / "homologation-5-review.png"))  # all of it: taller than the log
        choose(page, "Sí, todo correcto")
        done = last_answer(page)
        expect(done).to_contain_text("está enviado")
        case_id = done.locator("strong").inner_text()
        page.screenshot(path=str(ARTIFACTS / "homologation-6-completed.png"))

        office = page.request.get(f"{url}/cases/{case_id}", headers={"X-API-Key": OPERATOR_KEY})
        assert office.status == 200
        case = office.json()
        assert [(e["code"], e["variant"]) for e in case["elements"]] == [("ESCAPE_MOTO", None), ("SUSPENSION_MOTO_DEL", "DEL")]
        assert case["elements"][0]["photos"] == exhaust_ids and case["elements"][1]["photos"] == shock_ids
        assert case["elements"][0]["fields"]["Nº de homologación"] == "E13*1234"
        assert case["documents"] == document_ids
        assert case["data"]["Datos personales"]["DNI/NIE"] == "12345678Z"
        assert case["data"]["Datos del vehículo"]["Matrícula"] == "1234 BCD"
        assert case["data"]["Datos del vehículo"]["Nº de bastidor (VIN)"] == "VF1AB000123456789"
        summary = page.request.get(f"{url}/cases/{case_id}/summary.pdf", headers={"X-API-Key": OPERATOR_KEY})
        assert summary.status == 200 and summary.body().startswith(b"%PDF")
        assert page.request.get(f"{url}/cases/{case_id}").status in (401, 403)  # the office's key only

        page.reload()  # what the conversation showed comes back: the drawings and the files sent
        expect(page.locator(".examples img")).to_have_count(7)
        expect(page.locator(".msg.user .att.sent")).to_have_count(len(exhaust) + len(shock) + len(papers))
        expect(page.locator(".msg.user .att.sent .name").first).to_have_text("escape-0.jpg")
        page.screenshot(path=str(ARTIFACTS / "homologation-7-reloaded.png"))
